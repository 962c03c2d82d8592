// The OpenTelemetry SDK part of tracing: imported only by `startTracingFromEnv`, and only when
// tracing is on (the SDK and the exporter cost import time nobody else should pay).
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { RunTraceIds } from './run-trace-ids.js';
import type { TracingSettings } from './tracing-from-env.js';

export interface TracingSdk {
  startSdk(
    settings: TracingSettings,
    onExportError: (message: string) => void,
  ): {
    readonly tracer: Tracer;
    readonly traceIds: RunTraceIds;
    shutdown(): Promise<void>;
  };
}

/**
 * A tracer provider of its own (not registered globally: the server is handed its tracer),
 * with the run trace ids' generator, exporting in batches over OTLP/HTTP (JSON) and/or to the
 * console span by span. The SDK reads its other `OTEL_*` variables itself (the sampler,
 * `OTEL_BSP_*` batching, the export timeout).
 */
export function startSdk(
  settings: TracingSettings,
  onExportError: (message: string) => void,
): ReturnType<TracingSdk['startSdk']> {
  const spanProcessors: SpanProcessor[] = settings.exporters.map((name) =>
    name === 'console'
      ? new SimpleSpanProcessor(new ConsoleSpanExporter())
      : new BatchSpanProcessor(
          reportingFailures(
            new OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers } }),
            settings.url,
            onExportError,
          ),
        ),
  );
  const traceIds = new RunTraceIds();
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes(settings.resource)),
    idGenerator: traceIds,
    spanProcessors,
  });
  return {
    tracer: provider.getTracer('@reins/server'),
    traceIds,
    shutdown: () => provider.shutdown(),
  };
}

const REPORT_EVERY_MS = 60_000;

/**
 * The exporter, saying when a batch could not be sent (the SDK alone says nothing: its
 * diagnostics are off unless a global logger is set): the first failure at once, then at most
 * one report a minute with the number of spans lost meanwhile.
 */
function reportingFailures(
  exporter: SpanExporter,
  url: string,
  report: (message: string) => void,
): SpanExporter {
  const where = new URL(url); // no user, password or query in the message
  let lost = 0;
  let reportedAt = -Infinity;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0 (`@opentelemetry/core`, not a dependency for one constant).
        if (result.code !== 0) {
          lost += spans.length;
          const now = Date.now();
          if (now - reportedAt >= REPORT_EVERY_MS) {
            reportedAt = now;
            const reason = result.error?.message ?? 'export failed';
            report(
              `traces: ${lost} span(s) could not be sent to ${where.origin}${where.pathname}: ${reason}`,
            );
            lost = 0;
          }
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
