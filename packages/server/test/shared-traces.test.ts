import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { memoryRunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import { startTracingFromEnv, type SharedRole, type Tracing } from '../src/index.js';
import { as, final, postJson, start, type Started } from './helpers.js';
import { cleanupAfterEach, otlpReceiver } from './otlp-receiver.js';

// The shared mode on this machine's Redis (as shared-mode.test.ts): the API instance chooses the
// trace id when it admits the run; the worker that executes it traces it under that id.
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const defer = cleanupAfterEach();

/** An API instance and a worker sharing Redis, each tracing to one receiver under its own service name. */
async function apiAndWorker(reply: string) {
  const otlp = await otlpReceiver();
  defer(() => otlp.close());
  const store = memoryRunStore();
  const prefix = `reins-test-${randomUUID().slice(0, 8)}:`;
  const model = scriptModel([final(reply)]);
  const instance = async (role: SharedRole, tracing: Tracing): Promise<Started> => {
    const one = await start({
      agents: { hi: { model } },
      durable: { store },
      redisPrefix: prefix,
      shared: { role, redisUrl: REDIS_URL, lockMs: 2_000 },
      ...tracing.serverOptions,
    });
    defer(() => one.close());
    await one.server.recover();
    return one;
  };
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint };
  const apiTracing = await startTracingFromEnv({ ...env, OTEL_SERVICE_NAME: 'api' });
  const workerTracing = await startTracingFromEnv({ ...env, OTEL_SERVICE_NAME: 'worker' });
  defer(() => apiTracing.shutdown());
  defer(() => workerTracing.shutdown());
  const api = await instance('api', apiTracing);
  await instance('worker', workerTracing);
  return { otlp, api, workerTracing };
}

it('a run queued by an API instance is traced by the worker under the trace id the API answered', async () => {
  const { otlp, api, workerTracing } = await apiAndWorker('hello from the worker');
  const { status, headers, body } = await postJson(
    `${api.url}/v1/runs`,
    { agent: 'hi', input: 'hi' },
    as('a'),
  );
  expect(status).toBe(200);
  const record = body.record as { run_id: string; status: string; trace_id?: string };
  expect(record).toMatchObject({ status: 'success' });
  expect(record.trace_id).toMatch(/^[0-9a-f]{32}$/);
  expect(headers.get('x-trace-id')).toBe(record.trace_id);

  await workerTracing.shutdown();
  const run = otlp.spans.find((s) => s.name === 'reins.run');
  expect(run).toMatchObject({
    traceId: record.trace_id,
    service: 'worker',
    attributes: { 'reins.run_id': record.run_id },
  });
  expect(otlp.spans.filter((s) => s.traceId === record.trace_id).map((s) => s.name)).toEqual(
    expect.arrayContaining(['reins.run', 'reins.step', 'reins.model_call']),
  );
});

it("a caller's traceparent crosses from the API instance to the worker: the worker's run span is the caller's child", async () => {
  const { otlp, api, workerTracing } = await apiAndWorker('hello again');
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  const { status, headers, body } = await postJson(
    `${api.url}/v1/runs`,
    { agent: 'hi', input: 'hi' },
    { ...as('a'), traceparent: `00-${callerTrace}-${callerSpan}-01` },
  );
  expect(status).toBe(200);
  expect((body.record as { trace_id?: string }).trace_id).toBe(callerTrace);
  expect(headers.get('x-trace-id')).toBe(callerTrace);
  await workerTracing.shutdown();
  expect(otlp.spans.find((s) => s.name === 'reins.run')).toMatchObject({
    traceId: callerTrace,
    parentSpanId: callerSpan,
    service: 'worker',
  });
});
