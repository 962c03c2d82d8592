import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scriptModel } from 'reins/testing';
import { readTracingSettings, startTracingFromEnv, TracingConfigError } from '../src/index.js';
import { as, final, postJson, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  vi.restoreAllMocks();
});

function refusal(env: Record<string, string>): { setting: string; code: string; message: string } {
  try {
    readTracingSettings(env);
  } catch (error) {
    if (error instanceof TracingConfigError)
      return { setting: error.setting, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('the OTEL_* settings', () => {
  it('off when nothing is set, with OTEL_TRACES_EXPORTER=none, or OTEL_SDK_DISABLED=true', () => {
    expect(readTracingSettings({})).toBeUndefined();
    expect(readTracingSettings({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(
      readTracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeUndefined();
    expect(
      readTracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeUndefined();
  });

  it('an endpoint alone exports over OTLP to <endpoint>/v1/traces; the traces endpoint is used as given', () => {
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, 'svc')).toEqual({
      exporters: ['otlp'],
      url: 'http://collector:4318/v1/traces',
      headers: {},
      resource: { 'service.name': 'svc' },
    });
    expect(
      readTracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/in',
      })?.url,
    ).toBe('https://traces.example/in');
    expect(readTracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })?.url).toBe(
      'http://localhost:4318/v1/traces',
    );
  });

  it('reads the exporters list, the service name, resource attributes and the headers (percent-decoded)', () => {
    expect(
      readTracingSettings({
        OTEL_TRACES_EXPORTER: 'console, otlp',
        OTEL_SERVICE_NAME: 'kitchen',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=ignored',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-a=1',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-a=2',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({
      exporters: ['console', 'otlp'],
      url: 'http://localhost:4318/v1/traces',
      headers: { authorization: 'Bearer abc', 'x-a': '2' },
      resource: { 'service.name': 'kitchen', 'deployment.environment': 'prod' },
    });
  });

  it('a malformed setting is refused with INVALID_PARAMETER, naming the variable (never echoing a header value)', () => {
    expect(refusal({ OTEL_TRACES_EXPORTER: 'jaeger' })).toMatchObject({
      setting: 'OTEL_TRACES_EXPORTER',
      code: 'INVALID_PARAMETER',
    });
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).setting).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }).message).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://c/v1/traces' }).setting).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    );
    expect(
      refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).setting,
    ).toBe('OTEL_EXPORTER_OTLP_PROTOCOL');
    const headers = refusal({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'secret-token',
    });
    expect(headers.setting).toBe('OTEL_EXPORTER_OTLP_HEADERS');
    expect(headers.message).not.toContain('secret-token');
  });
});

describe('startTracingFromEnv', () => {
  it('off: the SDK is not loaded, the server gets nothing, and a run has no trace id', async () => {
    const loadSdk = vi.fn(() => Promise.reject(new Error('must not load')));
    const tracing = await startTracingFromEnv({}, { loadSdk });
    expect(loadSdk).not.toHaveBeenCalled();
    expect(tracing).toMatchObject({ enabled: false, serverOptions: {} });
    expect(tracing.describe).toContain('traces: off');
    running = await start({
      agents: { hi: { model: scriptModel([final('hello')]) } },
      ...tracing.serverOptions,
    });
    const { body } = await postJson(`${running.url}/v1/runs`, { agent: 'hi', input: 'hi' }, as('a'));
    expect(body.record).toMatchObject({ status: 'success' });
    expect(body.record).not.toHaveProperty('trace_id');
    await tracing.shutdown();
  });

  it('console: each span is printed as it ends, under the trace id of the record', async () => {
    const printed: unknown[] = [];
    vi.spyOn(console, 'dir').mockImplementation((value: unknown) => void printed.push(value));
    vi.spyOn(console, 'log').mockImplementation((value: unknown) => void printed.push(value));
    const tracing = await startTracingFromEnv({ OTEL_TRACES_EXPORTER: 'console' });
    expect(tracing.describe).toBe('traces: to the console (service reins)');
    running = await start({
      agents: { hi: { model: scriptModel([final('hello')]) } },
      ...tracing.serverOptions,
    });
    const { body } = await postJson(`${running.url}/v1/runs`, { agent: 'hi', input: 'hi' }, as('a'));
    const traceId = (body.record as { trace_id?: string }).trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    await tracing.shutdown();
    const spans = printed as { name?: string; traceId?: string }[];
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(['reins.run', 'reins.step', 'reins.model_call']),
    );
    for (const span of spans) expect(span.traceId).toBe(traceId);
  });
});

// Import cost: `import('@reins/server')` and tracing left off must not load the SDK. A fresh
// `node` imports the server's sources and reports every module it resolved (as the core's
// `import-loads-no-zod` test does).
const HOOKS = pathToFileURL(
  new URL('../../reins/test/support/source-module-hooks.mjs', import.meta.url).pathname,
).href;
const ENTRY = pathToFileURL(new URL('../src/index.ts', import.meta.url).pathname).href;
const CHILD = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const resolved = [];
let marker;
port1.on('message', (url) => { resolved.push(url); if (url === marker?.url) marker.done(); });
register(${JSON.stringify(HOOKS)}, { data: { port: port2 }, transferList: [port2] });
const settled = async (name) => {
  const url = 'data:text/javascript,' + encodeURIComponent('// ' + name);
  await new Promise((done) => { marker = { url, done }; import(url); });
  return resolved.splice(0).filter((u) => u.includes('/node_modules/@opentelemetry/'));
};
const server = await import(${JSON.stringify(ENTRY)});
const off = await server.startTracingFromEnv({});
const atOff = await settled('off');
const on = await server.startTracingFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' });
const atOn = await settled('on');
await on.shutdown();
process.stdout.write(JSON.stringify({ off: off.enabled, atOff, on: on.enabled, atOn }));
port1.close();
`;

describe('import cost', { timeout: 60_000 }, () => {
  it('a fresh process importing the server with tracing off loads no SDK package; turned on, it does', () => {
    const child = spawnSync(
      process.execPath,
      ['--conditions=reins-source', '--input-type=module', '-e', CHILD],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.stderr).not.toMatch(/Error/);
    const report = JSON.parse(child.stdout) as { off: boolean; atOff: string[]; on: boolean; atOn: string[] };
    const packages = (urls: string[]) =>
      [...new Set(urls.map((u) => /\/node_modules\/(@opentelemetry\/[^/]+)\//.exec(u)?.[1]))].sort();
    expect({
      off: report.off,
      loaded: packages(report.atOff).filter((p) => p !== '@opentelemetry/api'),
    }).toEqual({
      off: false,
      loaded: [],
    });
    expect(report.on).toBe(true);
    expect(packages(report.atOn)).toEqual(
      expect.arrayContaining(['@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/sdk-trace-base']),
    );
  });
});
