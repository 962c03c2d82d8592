import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  memoryRunStore,
  type ApprovalEvent,
  type Model,
  type RunEvent,
  type RunStore,
} from 'reins';
import { scriptModel } from 'reins/testing';
import type { SharedRole } from '../src/index.js';
import { act, as, final, openSse, postJson, shape, start, type Started } from './helpers.js';

// The shared mode on this machine's Redis (CI starts it; a missing Redis fails these tests).
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

function orderTool(placed: string[]) {
  return defineTool({
    name: 'place_order',
    description: 'Orders groceries.',
    input: z.object({ item: z.string() }),
    output: z.object({ orderId: z.string() }),
    readOnly: false,
    run: ({ item }) => {
      placed.push(item);
      return { orderId: `o-${placed.length}` };
    },
  });
}

const started: Started[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close();
});

/** One instance of a cluster: every instance of a test shares the store, the Redis prefix and the model. */
async function instance(
  cluster: { store: RunStore; prefix: string; model: Model; placed: string[] },
  role: SharedRole,
  extra: { lockMs?: number; drainGraceMs?: number; concurrency?: number } = {},
): Promise<Started> {
  const one = await start({
    agents: { shop: { model: cluster.model, tools: [orderTool(cluster.placed)] } },
    durable: { store: cluster.store },
    redisPrefix: cluster.prefix,
    shared: { role, redisUrl: REDIS_URL, lockMs: extra.lockMs ?? 2_000, ...extra },
  });
  started.push(one);
  await one.server.recover();
  return one;
}

function cluster(replies: Parameters<typeof scriptModel>[0]) {
  return {
    store: memoryRunStore(),
    prefix: `reins-test-${randomUUID().slice(0, 8)}:`,
    model: scriptModel(replies),
    placed: [] as string[],
  };
}

describe('shared mode: API instances queue runs, workers execute them', () => {
  it('a run started on A is executed by a worker and streamed from A and, with Last-Event-ID, from B', async () => {
    const c = cluster([{ text: final('hello from the worker'), delayMs: 100 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');

    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'say hello' },
      headers: as('alice'),
    });
    await client.ended;
    expect(shape(client.events)).toEqual(['start', 'step:reason', 'message', 'done']);
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    const runId = client.events[0]?.runId ?? '';

    // B never saw the run: it reads it from the store, from the event after seq 0.
    const replay = await openSse(`${b.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': '0' },
    });
    await replay.ended;
    expect(replay.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(replay.events).toEqual(client.events.slice(1));
    // Someone else's run: the 404 of a missing one, on every instance.
    expect((await fetch(`${b.url}/v1/runs/${runId}`, { headers: as('mallory') })).status).toBe(404);
  });

  it('a worker serves no API: /v1 is not there, /health reports the queue', async () => {
    const c = cluster([]);
    const w = await instance(c, 'worker');
    expect((await fetch(`${w.url}/v1/agents`, { headers: as('alice') })).status).toBe(404);
    const health = (await (await fetch(`${w.url}/health`)).json()) as { checks: Record<string, unknown> };
    expect(health.checks['queue']).toMatchObject({ status: 'up', role: 'worker', holding: 0 });
  });

  it('a paused run is approved on another instance; a worker rebuilds it and the tool runs once', async () => {
    const c = cluster([act('place_order', { item: 'milk' }), final('ordered milk')]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    await instance(c, 'worker');

    const paused = await postJson(`${a.url}/v1/runs`, { agent: 'shop', input: 'order milk' }, as('alice'));
    expect(paused.body.record).toMatchObject({ status: 'awaiting_approval' });
    const events = paused.body.events as RunEvent[];
    const approval = events.find((e): e is ApprovalEvent => e.type === 'approval');
    if (approval === undefined) throw new Error('no approval event');
    const runId = approval.runId;

    // The wrong user is the 404 of a missing run; a wrong hash is refused by the worker, as data.
    const wrong = await postJson(
      `${b.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: 'f'.repeat(64), approve: true },
      as('alice'),
    );
    expect(wrong.status).toBe(400);
    expect(c.placed).toEqual([]);

    const done = await postJson(
      `${b.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: approval.inputHash, approve: true },
      as('alice'),
    );
    expect(done.status).toBe(200);
    expect(done.body.record).toMatchObject({ status: 'success', final_answer: 'ordered milk' });
    expect(c.placed).toEqual(['milk']);
    // A second approval of the same act: nothing is pending any more.
    const again = await postJson(
      `${a.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: approval.inputHash, approve: true },
      as('alice'),
    );
    expect(again.status).toBe(404);
    expect(c.placed).toEqual(['milk']);
    const stored = await c.store.load(runId);
    expect(stored?.run.status).toBe('success');
  });

  it('a cancel sent to B stops the run a worker holds for a client on A', async () => {
    const c = cluster([{ text: final('too late'), delayMs: 30_000 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'take your time' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start'); // a worker holds it (in its model call)
    const runId = client.events[0]?.runId ?? '';
    const sent = performance.now();
    const cancelled = await postJson(`${b.url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(performance.now() - sent).toBeLessThan(2_000);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    await client.ended;
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
  });

  it('a client leaving instance A cancels its run on the worker', async () => {
    const c = cluster([{ text: final('too late'), delayMs: 30_000 }]);
    const a = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'take your time' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start'); // a worker holds it (in its model call)
    const runId = client.events[0]?.runId ?? '';
    client.destroy();
    const deadline = Date.now() + 5_000;
    let status: string | undefined;
    while (Date.now() < deadline) {
      status = (await c.store.load(runId))?.run.status;
      if (status === 'cancelled') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe('cancelled');
  });

  it('draining an API instance ends its streams with a reconnect event; the run goes on and is followed from B', async () => {
    const c = cluster([{ text: final('made it'), delayMs: 600 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'slowly' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'step');
    await a.server.drain();
    const reconnect = await client.waitFor((f) => f.event === 'reconnect');
    const info = JSON.parse(reconnect.data ?? '{}') as { code: string; lastEventId: number };
    expect(info.code).toBe('SERVER_DRAINING');
    const runId = client.events[0]?.runId ?? '';
    const rest = await openSse(`${b.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': String(info.lastEventId) },
    });
    await rest.ended;
    expect([...client.events, ...rest.events].map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(rest.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });
});
