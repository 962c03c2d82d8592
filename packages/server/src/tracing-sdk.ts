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
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { RunTraceIds } from './run-trace-ids.js';
import type { TracingSettings } from './tracing-from-env.js';

export interface TracingSdk {
  startSdk(settings: TracingSettings): {
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
export function startSdk(settings: TracingSettings): ReturnType<TracingSdk['startSdk']> {
  const spanProcessors: SpanProcessor[] = settings.exporters.map((name) =>
    name === 'console'
      ? new SimpleSpanProcessor(new ConsoleSpanExporter())
      : new BatchSpanProcessor(
          new OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers } }),
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
