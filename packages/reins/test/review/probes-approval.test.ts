import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ApprovalEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, collect, final } from '../helpers.js';

const owner = { id: 'user-1' };
const many = (calls: { action: string; input: Record<string, unknown> }[]) =>
  JSON.stringify({ thought: 't', actions: calls });
const approvalOf = (events: readonly RunEvent[]) =>
  events.find((e) => e.type === 'approval') as ApprovalEvent;
const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'TIMED OUT'>((r) => setTimeout(() => r('TIMED OUT'), ms))]);

function tools() {
  const ran: string[] = [];
  const slowRead = defineTool({
    name: 'slow_read',
    description: 'r',
    input: z.object({ id: z.string() }),
    output: z.object({ id: z.string() }),
    readOnly: true,
    run: async ({ id }) => {
      await new Promise((r) => setTimeout(r, 30));
      ran.push(`slow_read ${id}`);
      return { id };
    },
  });
  const audited = defineTool({
    name: 'audited_read',
    description: 'read-only but needs approval',
    input: z.object({ id: z.string() }),
    output: z.object({ id: z.string() }),
    readOnly: true,
    needsApproval: true,
    run: ({ id }) => {
      ran.push(`audited ${id}`);
      return { id };
    },
  });
  const order = defineTool({
    name: 'place_order',
    description: 'o',
    input: z.object({ item: z.string() }),
    output: z.object({ ok: z.boolean() }),
    readOnly: false,
    run: ({ item }) => {
      ran.push(`order ${item}`);
      return { ok: true };
    },
  });
  return { slowRead, audited, order, ran };
}

describe('review probes: approvals', () => {
  it('A1: a read-only needsApproval call beside a slow read-only call: the run can be approved and ends', async () => {
    const { slowRead, audited } = tools();
    const model = scriptModel([
      many([
        { action: 'slow_read', input: { id: 'a' } },
        { action: 'audited_read', input: { id: 'b' } },
      ]),
      final('done'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [slowRead, audited], principal: owner });
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_approval');
    await new Promise((r) => setTimeout(r, 60)); // slow_read settles while the run is paused
    const { actId, inputHash } = approvalOf(run.events);
    expect(run.approve({ by: owner, actId, inputHash, approve: true })).toMatchObject({ ok: true });
    const end = await withTimeout(run.result, 500);
    expect(end).not.toBe('TIMED OUT');
    expect((end as { status: string }).status).toBe('success');
  });

  it('A2: two read-only needsApproval calls in one step: each is asked, approved, and the run ends', async () => {
    const { audited, ran } = tools();
    const model = scriptModel([
      many([
        { action: 'audited_read', input: { id: 'a' } },
        { action: 'audited_read', input: { id: 'b' } },
      ]),
      final('done'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [audited], principal: owner });
    for (let i = 0; i < 3; i++) {
      const stop = await withTimeout(run.result, 500);
      if (stop === 'TIMED OUT' || stop.status !== 'awaiting_approval') break;
      const pending = run.pendingApproval;
      if (pending === undefined) break;
      await new Promise((r) => setTimeout(r, 30)); // the user takes a moment to answer
      run.approve({ by: owner, actId: pending.actId, inputHash: pending.inputHash, approve: true });
    }
    const end = await withTimeout(run.result, 500);
    expect(end).not.toBe('TIMED OUT');
    expect((end as { status: string }).status).toBe('success');
    expect(ran.sort()).toEqual(['audited a', 'audited b']);
  });

  it('A3: a tool array that gains a non-read-only tool after its first run still asks for approval', async () => {
    const { slowRead, order, ran } = tools();
    const list = [slowRead];
    await runAgent({ query: 'q', model: scriptModel([final('x')]), tools: list, principal: owner }).result;
    list.push(order as never);
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('place_order', { item: 'eggs' }), final('ordered')]),
      tools: list,
      principal: owner,
    });
    const record = await run.result;
    expect(ran).toEqual([]); // nothing ordered without the user's approval
    expect(record.status).toBe('awaiting_approval');
  });

  it('A4: after a pause and an approval, iterating the run again yields the events after the pause', async () => {
    const { order } = tools();
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('place_order', { item: 'eggs' }), final('ordered')]),
      tools: [order],
      principal: owner,
    });
    await run.result;
    const { actId, inputHash } = approvalOf(run.events);
    run.approve({ by: owner, actId, inputHash, approve: true });
    await run.result;
    expect(run.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    const seen = await collect(run);
    expect(seen.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });
});
