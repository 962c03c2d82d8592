import type { RunEvent } from '../events.js';

type Env = Readonly<Record<string, string | undefined>>;

/** One run's spans (see `@reins/server/tracing`). */
export interface CliTracedRun {
  /** Shown with the run id, and added to the `--json` record as `trace_id`. */
  readonly traceId: string | undefined;
  observe(event: RunEvent): void;
  finish(at: number): void;
}

export interface CliTracing {
  readonly enabled: boolean;
  readonly describe: string;
  traceRun(): CliTracedRun;
  shutdown(): Promise<void>;
}

/** What the CLI needs from `@reins/server/tracing` (loaded only when traces are asked for). */
interface TracingPackage {
  startRunTracing(
    env: Env,
    options: { serviceName: string; onExportError: (message: string) => void },
  ): Promise<CliTracing>;
}

/** Traces could not be set up as asked: printed with its code, exit status 2. */
export interface CliTracingFailure {
  readonly code: string;
  readonly message: string;
}

/** The settings that can turn traces on (`readTracingSettings`): with none set, nothing is loaded. */
const TURNING_ON = [
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
];

const OFF: CliTracing = {
  enabled: false,
  describe: 'traces: off',
  traceRun: () => ({ traceId: undefined, observe: () => undefined, finish: () => undefined }),
  shutdown: () => Promise.resolve(),
};

/**
 * The CLI's traces, from the same `OTEL_*` settings as the server's, by the server's own code:
 * the optional `@reins/server` package, loaded at run time (the core never imports it), and
 * only when one of those settings is there. A malformed setting, or the package missing while
 * traces are asked for, is a failure with a code (never a run without the traces asked for).
 */
export async function startCliTracing(
  env: Env,
  onExportError: (message: string) => void,
  load: () => Promise<unknown> = loadTracingPackage,
): Promise<CliTracing | CliTracingFailure> {
  const asking = TURNING_ON.find((name) => (env[name]?.trim() ?? '') !== '');
  if (asking === undefined || tracesTurnedOff(env)) return OFF;
  let tracing: TracingPackage;
  try {
    tracing = (await load()) as TracingPackage;
  } catch (thrown) {
    const why = thrown instanceof Error ? thrown.message : String(thrown);
    return {
      code: 'INVALID_PARAMETER',
      message: `${asking} asks for traces, which need the @reins/server package; it did not load: ${why}`,
    };
  }
  try {
    return await tracing.startRunTracing(env, { serviceName: 'reins-cli', onExportError });
  } catch (thrown) {
    // A `TracingConfigError`: the setting named, its value only when it is no secret.
    if (thrown instanceof Error && 'code' in thrown && typeof thrown.code === 'string')
      return { code: thrown.code, message: thrown.message };
    throw thrown;
  }
}

function loadTracingPackage(): Promise<unknown> {
  const specifier = '@reins/server/tracing'; // not a literal: the core has no build-time link to it
  return import(specifier);
}

export function isTracingFailure(value: CliTracing | CliTracingFailure): value is CliTracingFailure {
  return 'code' in value;
}

/** Traces explicitly off (the OpenTelemetry spec's settings): nothing to load, whatever else is set. */
function tracesTurnedOff(env: Env): boolean {
  return (
    env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true' ||
    env['OTEL_TRACES_EXPORTER']?.trim().toLowerCase() === 'none'
  );
}
