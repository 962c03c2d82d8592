import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent, RunEvent } from 'reins';
import { PG_URL } from './backends.js';
import {
  act,
  alice,
  buildPackages,
  counted,
  dropSchemas,
  final,
  follow,
  freshSchema,
  getRun,
  killAll,
  startChild,
  startRun,
  until,
  userHeaders,
  type Child,
  type OtherFrame,
} from './child-server.js';

// The shared mode as it runs: API instances and workers as real processes on this machine's
// PostgreSQL and Redis (CI starts both; a missing one fails here, never skips).
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const LOCK_MS = 1_500; // a killed worker's runs are handed over after about this long

interface Cluster {
  readonly env: Record<string, string>;
  readonly counter: string;
  readonly apis: Child[];
  readonly workers: Child[];
  worker(): Promise<Child>;
}

/** 2 API instances and 2 workers over a fresh schema and Redis prefix, running `script`. */
async function cluster(script: unknown[], extra: Record<string, string> = {}): Promise<Cluster> {
  const schema = await freshSchema('shared');
  const counter = join(await mkdtemp(join(tmpdir(), 'shared-counter-')), 'executions');
  const env = {
    CRASH_BACKEND: 'postgres',
    CRASH_DATA: PG_URL,
    CRASH_SCHEMA: schema,
    CRASH_SCRIPT: JSON.stringify(script),
    CRASH_COUNTER: counter,
    CRASH_REDIS: REDIS_URL,
    CRASH_PREFIX: `reins-mp-${randomUUID().slice(0, 8)}:`,
    CRASH_LOCK_MS: String(LOCK_MS),
    ...extra,
  };
  const start = (role: string) => startChild({ ...env, CRASH_ROLE: role });
  const [a, b, w1, w2] = await Promise.all([start('api'), start('api'), start('worker'), start('worker')]);
  const workers = [w1, w2] as Child[];
  return {
    env,
    counter,
    apis: [a, b] as Child[],
    workers,
    worker: async () => {
      const w = await start('worker');
      workers.push(w);
      return w;
    },
  };
}

/** How many runs a worker holds now (its `/health`). */
async function holding(worker: Child): Promise<number> {
  const health = (await (await fetch(`${worker.url}/health`)).json()) as {
    checks: { queue?: { holding?: number } };
  };
  return health.checks.queue?.holding ?? 0;
}

beforeAll(buildPackages, 120_000);
afterEach(killAll);
afterAll(dropSchemas);

describe('shared mode: 2 API instances and 2 workers as processes on PostgreSQL and Redis', () => {
  it('a run started on A is streamed from B; a cancel sent to B stops it on the worker holding it', async () => {
    const c = await cluster([{ delayMs: 30_000, text: final('too late') }]);
    const [a, b] = c.apis as [Child, Child];
    const onA: RunEvent[] = [];
    const { runId, streamed } = await startRun(a.url, 'take your time', onA);
    await until('a worker holds the run', async () =>
      (await Promise.all(c.workers.map(holding))).some((n) => n === 1) ? true : undefined,
    );
    const onB: RunEvent[] = [];
    const followed = follow(b.url, runId, onB);
    await until('B streams the run', () => (onB.length > 0 ? true : undefined));

    const sent = performance.now();
    const response = await fetch(`${b.url}/v1/runs/${runId}/cancel`, { method: 'POST', headers: alice });
    const cancelMs = performance.now() - sent;
    expect(await response.json()).toMatchObject({ status: 'cancelled' });
    expect(cancelMs).toBeLessThan(2_000); // the bench measures the real figure (p99 < 200 ms)
    await Promise.all([streamed, followed]);
    expect(onA.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
    expect(onB.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
    expect(onB.map((e) => e.seq)).toEqual(onA.map((e) => e.seq));
  }, 60_000);

  it('the worker holding a run is killed with SIGKILL: the other finishes it on the same stream; the order is placed once', async () => {
    const c = await cluster([
      act('place_order', { item: 'eggs' }),
      { delayMs: 2_000, text: final('eggs ordered') },
    ]);
    const [a] = c.apis as [Child];
    const seen: RunEvent[] = [];
    const { runId, streamed } = await startRun(a.url, 'order eggs', seen);
    await until('the order observed', () =>
      seen.some((e) => e.type === 'step' && e.phase === 'observe') ? true : undefined,
    );
    const holders = await Promise.all(c.workers.map(holding));
    const victim = c.workers[holders.indexOf(1)];
    if (victim === undefined) throw new Error(`no worker holds the run: ${JSON.stringify(holders)}`);
    await victim.kill(); // mid model call

    await streamed; // the client on A never reconnected: the events went on in the same stream
    expect(seen.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i)); // no gap, no duplicate
    expect(await getRun(a.url, runId)).toMatchObject({ status: 'success', final_answer: 'eggs ordered' });
    expect((await counted(c.counter)).filter((l) => l.startsWith('place_order'))).toHaveLength(1);
  }, 60_000);

  it('a pause is answered on the other instance after its worker died: a new worker rebuilds and finishes it', async () => {
    const c = await cluster([act('approved_order', { item: 'milk' }), final('ordered milk')]);
    const [a, b] = c.apis as [Child, Child];
    const started = await fetch(`${a.url}/v1/runs`, {
      method: 'POST',
      headers: alice,
      body: JSON.stringify({ agent: 'shop', input: 'order milk' }),
    });
    const paused = (await started.json()) as { record: { status: string }; events: RunEvent[] };
    expect(paused.record.status).toBe('awaiting_approval');
    const approval = paused.events.find((e): e is ApprovalEvent => e.type === 'approval') as ApprovalEvent;
    // Every worker that could have held it goes away; a new one comes.
    await Promise.all(c.workers.splice(0).map((w) => w.kill()));
    await c.worker();

    const approved = await fetch(`${b.url}/v1/runs/${approval.runId}/approve`, {
      method: 'POST',
      headers: alice,
      body: JSON.stringify({ actId: approval.actId, inputHash: approval.inputHash, approve: true }),
    });
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as { record: unknown }).record).toMatchObject({
      status: 'success',
      final_answer: 'ordered milk',
    });
    expect(await counted(c.counter)).toEqual([`approved_order milk ${approval.actId}`]);
  }, 60_000);

  it('one daily quota across both API instances', async () => {
    const c = await cluster([final('hi')], { CRASH_DAILY_CALLS: '3' });
    const [a, b] = c.apis as [Child, Child];
    const ask = (url: string) =>
      fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: userHeaders('bob'),
        body: JSON.stringify({ agent: 'shop', input: `hello ${randomUUID()}`, maxSteps: 1 }),
      });
    const statuses: number[] = [];
    for (const url of [a.url, b.url, a.url]) {
      const response = await ask(url);
      statuses.push(response.status);
      expect(await response.json()).toMatchObject({ record: { status: 'success' } });
    }
    const refusedB = await ask(b.url);
    const refusedA = await ask(a.url);
    expect([...statuses, refusedB.status, refusedA.status]).toEqual([200, 200, 200, 429, 429]);
    expect(await refusedB.json()).toMatchObject({ error: { code: 'QUOTA_EXCEEDED' } });
  }, 60_000);

  it('SIGTERM: a worker hands its run back (another finishes it); an API instance ends its streams with reconnect', async () => {
    const c = await cluster([{ delayMs: 1_500, text: final('after the drain') }], { CRASH_DRAIN_MS: '200' });
    const [a, b] = c.apis as [Child, Child];
    const seen: RunEvent[] = [];
    const others: OtherFrame[] = [];
    const { runId, streamed } = await startRun(a.url, 'slowly', seen, { others });
    await until('a worker holds the run', async () =>
      (await Promise.all(c.workers.map(holding))).some((n) => n === 1) ? true : undefined,
    );
    const holders = await Promise.all(c.workers.map(holding));
    const draining = c.workers[holders.indexOf(1)] as Child;
    await draining.terminate();
    expect(draining.output()).toContain('DRAINED');

    await a.terminate(); // the client on A is told to reconnect
    await streamed;
    const reconnect = others.find((f) => f.event === 'reconnect')?.data as {
      code: string;
      lastEventId: number;
    };
    expect(reconnect.code).toBe('SERVER_DRAINING');
    const rest: RunEvent[] = [];
    await follow(b.url, runId, rest, reconnect.lastEventId);
    expect(rest.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect([...seen, ...rest].map((e) => e.seq)).toEqual([...seen, ...rest].map((_, i) => i));
  }, 60_000);
});
