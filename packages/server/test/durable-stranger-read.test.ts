import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { memoryRunStore, runAgent, type Model } from 'reins';
import { scriptModel } from 'reins/testing';
import { requestRecord } from '../src/launch-run.js';
import { as, final, orderTool, postJson, shape, start, type Started } from './helpers.js';

const stuckModel: Model = { name: 'stuck', call: () => new Promise(() => undefined) };

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

// A run this process does not hold is read back from the store for its owner. Another user's
// request for it got the same 404 — but only after the run had been rebuilt and resumed (or
// held, if it had ended) on that user's request: a stranger could make this process run, and
// keep in memory, runs that were not theirs, by id.
describe("another user's request for a stored run this process does not hold", () => {
  it('gets the 404 without rebuilding or resuming it; its owner then gets it', async () => {
    const store = memoryRunStore();
    const runId = 'stored-not-held';
    await store.create({
      runId,
      ownerId: 'alice',
      agent: 'shop',
      conversationId: undefined,
      request: requestRecord({ agent: 'shop', query: 'hello', principal: { id: 'alice' }, options: {} }),
      createdAt: Date.now(),
    });
    running = await start({
      agents: { shop: { model: stuckModel, tools: [orderTool([])] } },
      durable: { store },
    });

    for (const path of ['', '/events']) {
      const res = await fetch(`${running.url}/v1/runs/${runId}${path}`, { headers: as('mallory') });
      expect(res.status).toBe(404);
    }
    expect((await postJson(`${running.url}/v1/runs/${runId}/cancel`, {}, as('mallory'))).status).toBe(404);
    await new Promise((r) => setTimeout(r, 30));
    expect((await store.load(runId))?.events).toEqual([]); // not started on mallory's requests
    expect(running.server.runs.size).toEqual({ live: 0, paused: 0, finished: 0 }); // nor held

    const read = await fetch(`${running.url}/v1/runs/${runId}`, { headers: as('alice') });
    expect(read.status).toBe(200);
    await new Promise((r) => setTimeout(r, 30));
    expect(shape((await store.load(runId))?.events ?? [])).toEqual(['start']); // resumed for its owner
  });
});

// The shared mode reads a run it does not hold from the store too (and follows it on the bus).
describe("shared mode: another user's request for a stored run", () => {
  it('gets the 404 without the run being held or followed here; its owner then gets it', async () => {
    const store = memoryRunStore();
    const done = runAgent({ query: 'hi', model: scriptModel([final('hello')]), tools: [], runId: 'ended-1' });
    await done.result;
    await store.create({ runId: 'ended-1', ownerId: 'alice', agent: 'shop', request: {}, createdAt: 1 });
    await store.append('ended-1', [...done.events]);
    running = await start({
      agents: { shop: { model: stuckModel, tools: [] } },
      durable: { store },
      redisPrefix: `reins-test-${randomUUID().slice(0, 8)}:`,
      shared: { role: 'api', redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' },
    });
    expect((await fetch(`${running.url}/v1/runs/ended-1`, { headers: as('mallory') })).status).toBe(404);
    expect(running.server.runs.size).toEqual({ live: 0, paused: 0, finished: 0 });
    const read = await fetch(`${running.url}/v1/runs/ended-1`, { headers: as('alice') });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ status: 'success', final_answer: 'hello' });
    expect(running.server.runs.size).toEqual({ live: 0, paused: 0, finished: 1 });
  });
});
