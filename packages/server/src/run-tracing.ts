// `@reins/server/tracing`: traces for a process that runs agents itself, without the server
// (the `reins run` CLI loads it at run time). The same `OTEL_*` settings, SDK and spans as the
// server's; importing it loads neither the server nor, while tracing is off, the SDK.
import type { RunEvent } from 'reins';
import { RunSpans } from './run-spans.js';
import { startTracingFromEnv, type StartTracingOptions } from './tracing-from-env.js';

export { TracingConfigError } from './tracing-from-env.js';

/** One run's spans, built from its events as they come (any order of batches, each event once). */
export interface TracedRun {
  /** The run's trace id, chosen before it starts; `undefined` when tracing is off. */
  readonly traceId: string | undefined;
  observe(event: RunEvent): void;
  /** This process is done with the run (ended, or left paused): its open spans end at `at`. */
  finish(at: number): void;
}

export interface RunTracing {
  readonly enabled: boolean;
  /** One line saying where the traces go (no secret in it). */
  readonly describe: string;
  traceRun(): TracedRun;
  /** Exports what is still buffered, then stops. Never rejects. */
  shutdown(): Promise<void>;
}

const UNTRACED: TracedRun = { traceId: undefined, observe: () => undefined, finish: () => undefined };

/**
 * Tracing from the standard `OTEL_*` variables, as `startTracingFromEnv` reads them (a malformed
 * one throws its `TracingConfigError`), with a `reins.run` span (and its steps, model and tool
 * calls) per traced run.
 */
export async function startRunTracing(
  env: Readonly<Record<string, string | undefined>>,
  options: StartTracingOptions = {},
): Promise<RunTracing> {
  const tracing = await startTracingFromEnv(env, options);
  const { tracer, traceIds } = tracing.serverOptions;
  return {
    enabled: tracing.enabled,
    describe: tracing.describe,
    traceRun(): TracedRun {
      if (tracer === undefined) return UNTRACED;
      const traceId = traceIds?.newTraceId();
      const spans = new RunSpans(tracer, { traceId, traceIds });
      return {
        traceId,
        observe: (event) => spans.observe(event),
        finish: (at) => spans.detach(at),
      };
    },
    shutdown: () => tracing.shutdown(),
  };
}
