import { describe, expect, it } from 'vitest';
import { isTracingFailure, startCliTracing } from '../src/cli/cli-tracing.js';

// `reins run` gets its traces from the optional @reins/server package, loaded only when an
// OTEL_* setting asks for traces (the end-to-end test is packages/server/test/cli-traces.test.ts).

const quiet = (): void => undefined;

function counted(load: () => Promise<unknown>) {
  const loads: number[] = [];
  return {
    loads,
    load: () => {
      loads.push(1);
      return load();
    },
  };
}

describe('startCliTracing', () => {
  it('loads nothing when no setting turns traces on (other OTEL_* settings, blank values)', async () => {
    const { load, loads } = counted(() => Promise.reject(new Error('must not load')));
    const tracing = await startCliTracing(
      { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: '  ', OTEL_RESOURCE_ATTRIBUTES: 'a=b' },
      quiet,
      load,
    );
    expect(loads).toEqual([]);
    expect(isTracingFailure(tracing)).toBe(false);
    if (isTracingFailure(tracing)) return;
    expect(tracing.enabled).toBe(false);
    expect(tracing.traceRun().traceId).toBeUndefined();
  });

  it.each([
    { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
    { OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' },
  ])('loads nothing when traces are turned off explicitly (%j), even without the package', async (env) => {
    const { load, loads } = counted(() => Promise.reject(new Error("Cannot find package '@reins/server'")));
    const tracing = await startCliTracing(env, quiet, load);
    expect(loads).toEqual([]);
    expect(isTracingFailure(tracing) ? tracing : tracing.enabled).toBe(false);
  });

  it.each(['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'])(
    '%s asks for traces: the package missing is a failure with a code, naming the setting',
    async (name) => {
      const { load, loads } = counted(() => Promise.reject(new Error("Cannot find package '@reins/server'")));
      const tracing = await startCliTracing({ [name]: 'http://127.0.0.1:4318' }, quiet, load);
      expect(loads).toHaveLength(1);
      expect(tracing).toEqual({
        code: 'INVALID_PARAMETER',
        message: `${name} asks for traces, which need the @reins/server package; it did not load: Cannot find package '@reins/server'`,
      });
    },
  );

  it("a setting the package refuses (its TracingConfigError) is a failure with the error's code", async () => {
    const refused = Object.assign(new Error('OTEL_TRACES_EXPORTER must be otlp, console or none'), {
      code: 'INVALID_PARAMETER',
    });
    const tracing = await startCliTracing({ OTEL_TRACES_EXPORTER: 'jaeger' }, quiet, () =>
      Promise.resolve({ startRunTracing: () => Promise.reject(refused) }),
    );
    expect(tracing).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'OTEL_TRACES_EXPORTER must be otlp, console or none',
    });
  });

  it('the real package, loaded: service reins-cli by default, a trace id chosen per run', async () => {
    const reports: string[] = [];
    const tracing = await startCliTracing(
      { OTEL_TRACES_EXPORTER: 'otlp,none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      (m) => reports.push(m),
    );
    if (isTracingFailure(tracing)) throw new Error(tracing.message);
    try {
      expect(tracing.describe).toBe('traces: OTLP/HTTP to http://127.0.0.1:9/v1/traces (service reins-cli)');
      expect(tracing.traceRun().traceId).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await tracing.shutdown();
    }
    expect(reports).toEqual([]); // nothing traced, nothing sent
  });
});
