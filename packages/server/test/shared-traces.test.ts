import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { memoryRunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import { startTracingFromEnv, type SharedRole, type Tracing } from '../src/index.js';
import { as, final, postJson, start, type Started } from './helpers.js';
import { otlpReceiver } from './otlp-receiver.js';

// The shared mode on this machine's Redis (as shared-mode.test.ts): the API instance chooses the
// trace id when it admits the run; the worker that executes it traces it under that id.
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('a run queued by an API instance is traced by the worker under the trace id the API answered', async () => {
  const otlp = await otlpReceiver();
  cleanups.push(() => otlp.close());
  const store = memoryRunStore();
  const prefix = `reins-test-${randomUUID().slice(0, 8)}:`;
  const model = scriptModel([final('hello from the worker')]);
  const instance = async (role: SharedRole, tracing: Tracing): Promise<Started> => {
    const one = await start({
      agents: { hi: { model } },
      durable: { store },
      redisPrefix: prefix,
      shared: { role, redisUrl: REDIS_URL, lockMs: 2_000 },
      ...tracing.serverOptions,
    });
    cleanups.push(() => one.close());
    await one.server.recover();
    return one;
  };
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint };
  const apiTracing = await startTracingFromEnv({ ...env, OTEL_SERVICE_NAME: 'api' });
  const workerTracing = await startTracingFromEnv({ ...env, OTEL_SERVICE_NAME: 'worker' });
  cleanups.push(
    () => apiTracing.shutdown(),
    () => workerTracing.shutdown(),
  );
  const api = await instance('api', apiTracing);
  await instance('worker', workerTracing);

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
