import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PG_URL } from './backends.js';
import { dropSchemas, freshSchema } from './child-server.js';
import { startFaultProxy, type FaultProxy, type ProxyMode } from './fault-proxy.js';
import { killKitchens, startKitchenProcess, type KitchenProcess } from './kitchen-process.js';

// Issue 16.13: `kitchen start` as a real process on PostgreSQL behind a TCP proxy that refuses
// or black-holes the database. Before the fix: refused → 500 INTERNAL on every route;
// black-holed → 5–12 s hangs, then 500. Now: 503 SERVICE_UNAVAILABLE with Retry-After within
// 2 s on reads, writes and runs, `/health` 503 naming the database, and 200 again once the
// database is back, without a restart.
// Issue 17.2: `/health` answers from its checks' background results (every 250 ms here), so it
// is polled until it reports the change; every answer comes within the deadline.

const DEADLINE_MS = 2_000;
const HEALTH_INTERVAL_MS = 250;

interface Health {
  readonly status: number;
  readonly report: { status: string; down?: string[]; checks: Record<string, { detail?: string }> };
  /** The slowest `/health` answer while polling. */
  readonly slowestMs: number;
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: Record<string, unknown>;
  readonly ms: number;
}

describe.skipIf(BACKENDS[1]?.skip ?? true)('kitchen start when PostgreSQL goes away', () => {
  let proxy: FaultProxy;
  let kitchen: KitchenProcess;
  let token = '';
  beforeAll(async () => {
    const target = new URL(PG_URL);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.host = `127.0.0.1:${proxy.port}`;
    kitchen = await startKitchenProcess({
      DATABASE_URL: target.toString(),
      DATABASE_SCHEMA: await freshSchema('kitchen_db_outage'),
      KITCHEN_SEED: 'demo',
      REINS_HEALTH_INTERVAL_MS: String(HEALTH_INTERVAL_MS),
    });
    const login = await fetch(`${kitchen.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'xiaojia', password: 'demo-xiaojia' }),
    });
    token = ((await login.json()) as { token: string }).token;
  }, 60_000);
  afterAll(async () => {
    await kitchen?.stop();
    killKitchens();
    await proxy?.close();
    await dropSchemas();
  });

  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const started = performance.now();
    const response = await fetch(`${kitchen.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      ms: performance.now() - started,
    };
  };
  const fridge = () => call('GET', '/api/fridge');
  const addItem = (name: string) =>
    call('POST', '/api/fridge', {
      name,
      quantity: 1,
      unit: '把',
      location: 'fridge',
      expiresOn: '2026-05-04',
    });
  const run = () => call('POST', '/v1/runs', { agent: 'kitchen', input: '冰箱里有什么？' });

  function expectUnavailable(answer: Answer): void {
    expect(answer).toMatchObject({
      status: 503,
      retryAfter: '2',
      body: {
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/database is unavailable/) },
      },
    });
    expect(answer.ms).toBeLessThan(DEADLINE_MS);
  }

  /** Polls `/health` until it answers `status` (for at most 3 s past the checks' deadline). */
  async function healthUntil(status: number): Promise<Health> {
    let slowestMs = 0;
    for (let tries = 0; ; tries++) {
      const started = performance.now();
      const response = await fetch(`${kitchen.url}/health`);
      const report = (await response.json()) as Health['report'];
      slowestMs = Math.max(slowestMs, performance.now() - started);
      if (response.status === status || tries >= 40) return { status: response.status, report, slowestMs };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function outage(mode: ProxyMode): Promise<Record<string, number>> {
    await proxy.set(mode);
    const answers = { read: await fridge(), write: await addItem('芹菜'), run: await run() };
    for (const answer of Object.values(answers)) expectUnavailable(answer);
    const { status, report, slowestMs: healthMs } = await healthUntil(503);
    expect(status).toBe(503);
    expect(report.status).toBe('unavailable');
    // The kitchen's tables and the run store, both in that database; nothing optional is down.
    expect(report.down).toEqual(['store', 'db']);
    console.info(`[db outage] ${mode}: /health`, JSON.stringify(report.checks['db']));
    expect(report.checks['db']).toMatchObject({ status: 'down' });
    expect(healthMs).toBeLessThan(DEADLINE_MS); // answered from the background results: no DB wait
    return {
      read: Math.round(answers.read.ms),
      write: Math.round(answers.write.ms),
      run: Math.round(answers.run.ms),
      health: Math.round(healthMs),
    };
  }

  async function recovered(): Promise<void> {
    await proxy.set('pass');
    expect((await fridge()).status).toBe(200); // the first request after: no restart, no retry
    expect((await addItem('菠菜')).status).toBe(201);
    const health = await healthUntil(200);
    expect(health.status).toBe(200);
    expect(health.report.checks['db']).toMatchObject({ status: 'up', backend: 'postgres' });
    expect(health.slowestMs).toBeLessThan(DEADLINE_MS);
  }

  it('up: reads, writes and runs answer', async () => {
    expect((await fridge()).status).toBe(200);
    expect((await addItem('香菜')).status).toBe(201);
    const answered = await run();
    expect(answered.status).toBe(200);
    expect(answered.body['record']).toMatchObject({ status: 'success' });
  }, 30_000);

  it('refused: 503 SERVICE_UNAVAILABLE + Retry-After within 2 s on every route; back up → 200', async () => {
    const ms = await outage('refuse');
    const report = (await (await fetch(`${kitchen.url}/health`)).json()) as {
      checks: Record<string, { detail?: string }>;
    };
    expect(report.checks['db']?.detail).toMatch(/the database is unavailable \(connection refused\)/);
    console.info('[db outage] refused: answered in ms', ms);
    await recovered();
  }, 30_000);

  it('black-holed: the same within 2 s (connect and query deadlines); back up → 200', async () => {
    const ms = await outage('blackhole');
    console.info('[db outage] black-holed: answered in ms', ms);
    await recovered();
    const answered = await run(); // the run store is back too: a run is stored and answered
    expect(answered.status).toBe(200);
    expect(answered.body['record']).toMatchObject({ status: 'success' });
  }, 30_000);
});
