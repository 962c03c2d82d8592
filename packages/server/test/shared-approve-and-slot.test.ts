import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryRunStore, type ApprovalEvent, type Model, type RunEvent, type RunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import type { SharedRole } from '../src/index.js';
import { act, as, final, openSse, orderTool, postJson, start, type Started } from './helpers.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const started: Started[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close().catch(() => undefined);
});

type Cluster = { store: RunStore; prefix: string; model: Model; placed: string[] };

function cluster(replies: Parameters<typeof scriptModel>[0]): Cluster {
  return {
    store: memoryRunStore(),
    prefix: `reins-test-${randomUUID().slice(0, 8)}:`,
    model: scriptModel(replies),
    placed: [] as string[],
  };
}

async function instance(
  c: Cluster,
  role: SharedRole,
  extra: { lockMs?: number; replyTimeoutMs?: number; quota?: Record<string, number> } = {},
): Promise<Started> {
  const { quota, ...shared } = extra;
  const one = await start({
    agents: { shop: { model: c.model, tools: [orderTool(c.placed)] } },
    durable: { store: c.store },
    redisPrefix: c.prefix,
    ...(quota === undefined ? {} : { quota }),
    shared: { role, redisUrl: REDIS_URL, lockMs: 2_000, ...shared },
  });
  started.push(one);
  await one.server.recover();
  return one;
}

async function storedStatus(store: RunStore, runId: string, wanted: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  let status = (await store.load(runId))?.run.status;
  while (status !== wanted && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    status = (await store.load(runId))?.run.status;
  }
  return status;
}

describe('shared mode: an approval on a running run, and the slot after one (found in review)', () => {
  // Contract: approving a run that waits for no approval is the core's NOT_FOUND → 404
  // (packages/server/src/routes/approve.ts:56-60, README "Refusals ... NOT_FOUND 404 (no such
  // pending approval ...)"); docs/scaling.md: approvals are answered "as data" (NOT_FOUND...).
  // In the shared mode the approve job of a *running* run waits behind the run lock of the
  // worker holding it, so the API answers 503 after replyTimeoutMs instead of 404.
  it('approving a run that is running (not paused) is a prompt 404, not a 503 after the reply timeout', async () => {
    const c = cluster([{ text: final('too late'), delayMs: 20_000 }]);
    const a = await instance(c, 'api', { replyTimeoutMs: 2_000 });
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'take your time' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    const runId = client.events[0]?.runId ?? '';
    const approved = await postJson(
      `${a.url}/v1/runs/${runId}/approve`,
      { actId: 'no-such-act', inputHash: 'f'.repeat(64), approve: true },
      as('alice'),
    );
    client.destroy();
    expect(approved.status).toBe(404);
  }, 15_000);

  // Contract: README "Running runs ... a run gives back its slot when it pauses (and takes one
  // again, never refused, when it goes on)" (packages/server/README.md:186-189). In the shared
  // mode a worker rebuilding a paused run to answer it takes no slot (RunHold.rebuild with
  // paused=true) and the watcher, started after the pause, never calls hold.resume(): the
  // approved run runs without a slot, so maxConcurrentRuns is not enforced against it.
  it('a run going on after an approval on a worker takes its running-run slot again', async () => {
    const c = cluster([
      act('place_order', { item: 'milk' }),
      { text: final('ordered milk'), delayMs: 4_000 },
      final('second run'),
    ]);
    const quota = { maxConcurrentRuns: 1, ratePerWindow: 100, userRunsPerMinute: 100 };
    const a = await instance(c, 'api', { quota });
    await instance(c, 'worker', { quota });
    const paused = await postJson(`${a.url}/v1/runs`, { agent: 'shop', input: 'order milk' }, as('alice'));
    expect(paused.body.record).toMatchObject({ status: 'awaiting_approval' });
    const approval = (paused.body.events as RunEvent[]).find(
      (e): e is ApprovalEvent => e.type === 'approval',
    );
    if (approval === undefined) throw new Error('no approval');
    const stream = await openSse(`${a.url}/v1/runs/${approval.runId}/approve`, {
      body: { actId: approval.actId, inputHash: approval.inputHash, approve: true },
      headers: as('alice'),
    });
    await stream.waitFor((f) => f.event === 'step' || f.id !== undefined); // it goes on (in its 4 s model call)
    await new Promise((r) => setTimeout(r, 300));
    expect(await storedStatus(c.store, approval.runId, 'running', 1_000)).toBe('running');
    // One run going on for alice: a second one is over maxConcurrentRuns=1.
    const second = await postJson(`${a.url}/v1/runs`, { agent: 'shop', input: 'another' }, as('alice'));
    stream.destroy();
    expect(second.status).toBe(429);
  }, 20_000);
});
