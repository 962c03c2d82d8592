import { describe, expect, it } from 'vitest';
import type { ApprovalEvent, RunEvent } from 'reins';
import { act, as, final, openSse, postJson } from './helpers.js';
import { cluster, sharedInstances, storedStatus } from './shared-cluster.js';

const { instance } = sharedInstances({ quietClose: true });

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
