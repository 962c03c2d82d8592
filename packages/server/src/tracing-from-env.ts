import type { Tracer } from '@opentelemetry/api';
import type { RunTraceIds } from './run-trace-ids.js';
import type { TracingSdk } from './tracing-sdk.js';

/** A tracing setting that cannot be used: refused at start-up, with the variable named. */
export class TracingConfigError extends Error {
  override readonly name = 'TracingConfigError';
  readonly code = 'INVALID_PARAMETER';
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting} ${message}`);
  }
}

export type TraceExporterName = 'otlp' | 'console';

/** The tracing settings, read from the standard `OTEL_*` variables. */
export interface TracingSettings {
  readonly exporters: readonly TraceExporterName[];
  /** Where OTLP/HTTP (JSON) posts the spans (the full URL, `…/v1/traces`). */
  readonly url: string;
  /** Sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, `…_TRACES_HEADERS`): may hold secrets. */
  readonly headers: Readonly<Record<string, string>>;
  /** `service.name` and any `OTEL_RESOURCE_ATTRIBUTES`. */
  readonly resource: Readonly<Record<string, string>>;
}

/** Tracing as started: spread `serverOptions` into `createReinsServer`, call `shutdown` at the end. */
export interface Tracing {
  readonly enabled: boolean;
  /** One line saying where the traces go, for the start-up output (no secret in it). */
  readonly describe: string;
  /** The tracer and its id generator; empty when tracing is off. */
  readonly serverOptions: { readonly tracer?: Tracer; readonly traceIds?: RunTraceIds };
  /** Exports what is still buffered, then stops. Never rejects (an unreachable collector loses the spans). */
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_URL = 'http://localhost:4318/v1/traces';
const EXPORTERS = new Set(['otlp', 'console', 'none']);

/**
 * The settings, or `undefined` when tracing is off: nothing set (neither
 * `OTEL_TRACES_EXPORTER` nor an OTLP endpoint), `OTEL_TRACES_EXPORTER=none`, or
 * `OTEL_SDK_DISABLED=true`. A malformed value throws a `TracingConfigError` naming it.
 */
export function readTracingSettings(env: Env, serviceName = 'reins'): TracingSettings | undefined {
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const endpoint = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const named = value('OTEL_TRACES_EXPORTER');
  const listed = named?.split(',').map((n) => n.trim().toLowerCase());
  for (const name of listed ?? []) {
    if (!EXPORTERS.has(name))
      throw new TracingConfigError(
        'OTEL_TRACES_EXPORTER',
        `must be otlp, console or none, not ${JSON.stringify(name)}`,
      );
  }
  // Unset: export over OTLP only when an endpoint is given (no collector assumed on localhost).
  const exporters = (listed ?? ((endpoint ?? tracesEndpoint) ? ['otlp'] : [])).filter(
    (n): n is TraceExporterName => n !== 'none',
  );
  if (exporters.length === 0) return undefined;
  const protocolSetting = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = value(protocolSetting);
  if (exporters.includes('otlp') && protocol !== undefined && protocol !== 'http/json')
    throw new TracingConfigError(
      protocolSetting,
      `must be http/json (the only one built in), not ${JSON.stringify(protocol)}`,
    );
  const url =
    tracesEndpoint !== undefined
      ? httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint)
      : endpoint !== undefined
        ? `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint).replace(/\/+$/, '')}/v1/traces`
        : DEFAULT_URL;
  const headers = {
    ...pairs('OTEL_EXPORTER_OTLP_HEADERS', value('OTEL_EXPORTER_OTLP_HEADERS')),
    ...pairs('OTEL_EXPORTER_OTLP_TRACES_HEADERS', value('OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
  };
  const resource = {
    'service.name': serviceName,
    ...pairs('OTEL_RESOURCE_ATTRIBUTES', value('OTEL_RESOURCE_ATTRIBUTES')),
    ...(value('OTEL_SERVICE_NAME') === undefined
      ? {}
      : { 'service.name': value('OTEL_SERVICE_NAME') as string }),
  };
  return { exporters, url, headers, resource };
}

export interface StartTracingOptions {
  /** `service.name` when `OTEL_SERVICE_NAME` is not set; default `reins`. */
  readonly serviceName?: string;
  /**
   * Told when spans could not be sent (the collector down or refusing): at once, then at most
   * once a minute. Default: `console.warn`. Runs are never failed for it.
   */
  readonly onExportError?: (message: string) => void;
  /** Loads the SDK (tests count the loads); default: a dynamic import, done only when tracing is on. */
  readonly loadSdk?: () => Promise<TracingSdk>;
}

/**
 * Tracing from the standard `OTEL_*` variables (see `readTracingSettings`): the OpenTelemetry
 * SDK, its spans exported over OTLP/HTTP (JSON) and/or to the console. Off, the SDK is not
 * even imported. Throws a `TracingConfigError` for a malformed setting.
 */
export async function startTracingFromEnv(env: Env, options: StartTracingOptions = {}): Promise<Tracing> {
  const settings = readTracingSettings(env, options.serviceName);
  if (settings === undefined) {
    return {
      enabled: false,
      describe: 'traces: off (set OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER to export them)',
      serverOptions: {},
      shutdown: () => Promise.resolve(),
    };
  }
  const sdk = await (options.loadSdk ?? (() => import('./tracing-sdk.js')))();
  const { tracer, traceIds, shutdown } = sdk.startSdk(settings, options.onExportError ?? console.warn);
  return {
    enabled: true,
    describe: `traces: ${describeExporters(settings)} (service ${settings.resource['service.name'] ?? ''})`,
    serverOptions: { tracer, traceIds },
    shutdown: () => shutdown().catch(() => undefined),
  };
}

function describeExporters(settings: TracingSettings): string {
  return settings.exporters
    .map((name) => {
      if (name === 'console') return 'to the console';
      const url = new URL(settings.url); // no user, password or query in the output
      return `OTLP/HTTP to ${url.origin}${url.pathname}`;
    })
    .join(' and ');
}

function httpUrl(setting: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TracingConfigError(setting, `is not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TracingConfigError(setting, `must be an http:// or https:// URL, not ${url.protocol}`);
  return text;
}

/** `key=value,key2=value2`, values percent-decoded (W3C Baggage style, as the OTel spec says). */
function pairs(setting: string, text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const [index, item] of text.split(',').entries()) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = at < 0 ? '' : item.slice(0, at).trim();
    // The value is never echoed: it may be a credential.
    if (key === '') throw new TracingConfigError(setting, `entry ${index + 1} is not key=value`);
    try {
      out[decodeURIComponent(key)] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new TracingConfigError(setting, `entry ${index + 1} (${key}) is not percent-encoded correctly`);
    }
  }
  return out;
}
