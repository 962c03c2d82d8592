import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ApprovalEvent, type ObserveStep, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final, shape } from './helpers.js';

const owner = { id: 'user-1' };

function orderTool(options: { readOnly?: boolean; needsApproval?: boolean } = {}) {
  const placed: unknown[] = [];
  const tool = defineTool({
    name: 'place_order',
    description: 'orders groceries',
    input: z.object({ item: z.string(), qty: z.number().int().min(1).max(10) }),
    output: z.object({ orderId: z.string() }),
    readOnly: options.readOnly ?? false,
    ...(options.needsApproval === undefined ? {} : { needsApproval: options.needsApproval }),
    run: (input) => {
      placed.push(input);
      return { orderId: `o-${placed.length}` };
    },
  });
  return { tool, placed };
}

const approvalOf = (events: readonly RunEvent[]) =>
  events.find((e) => e.type === 'approval') as ApprovalEvent;
const observeOf = (events: readonly RunEvent[]) =>
  (events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep).observation;

function start(limits = {}, extraReplies: string[] = []) {
  const { tool, placed } = orderTool();
  const model = scriptModel([
    act('place_order', { item: ' 鸡蛋 ', qty: 2 }),
    final('ordered'),
    ...extraReplies,
  ]);
  const run = runAgent({ query: 'order eggs', model, tools: [tool], principal: owner, limits });
  return { run, model, placed };
}

describe('approval of calls that change something', () => {
  it('pauses with the exact validated input and its hash; nothing runs until the user answers', async () => {
    const { run, model, placed } = start();
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_approval');
    expect(shape(run.events)).toEqual(['start', 'step:reason', 'step:act', 'approval', 'done']);
    const approval = approvalOf(run.events);
    expect(approval).toMatchObject({ tool: 'place_order', input: { item: '鸡蛋', qty: 2 }, index: 1 });
    expect(approval.inputHash).toMatch(/^[0-9a-f]{64}$/);
    expect(paused.pending_approval).toMatchObject({ act_id: approval.actId, input_hash: approval.inputHash });
    expect(paused.intent).toBe('approval');
    expect(run.pendingApproval?.actId).toBe(approval.actId);
    expect(placed).toEqual([]);
    expect(model.calls).toHaveLength(1);
    run.cancel();
    await run.result;
  });

  it('an approval by the owner for that act and input resumes the run; the tool runs exactly once', async () => {
    const { run, placed } = start();
    await run.result;
    const { actId, inputHash } = approvalOf(run.events);
    const answer = run.approve({ by: owner, actId, inputHash, approve: true });
    expect(answer).toEqual({ ok: true, actId, approved: true });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('ordered');
    expect(placed).toEqual([{ item: '鸡蛋', qty: 2 }]);
    expect(observeOf(run.events)).toMatchObject({
      status: 'ok',
      approval: { kind: 'approved', by: 'user-1' },
    });
    // The resume is logged first: who approved, when (evidence, and what a restart replays).
    expect(shape(run.events).slice(4)).toEqual([
      'done',
      'resume',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    expect(run.events[5]).toMatchObject({
      type: 'resume',
      actId,
      outcome: { kind: 'approved', by: 'user-1' },
    });
    // Single use: the same approval again is refused.
    expect(run.approve({ by: owner, actId, inputHash, approve: true })).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
    expect(placed).toHaveLength(1);
  });

  it('refuses forged approvals: another user, another act, another input', async () => {
    const { run, placed } = start();
    await run.result;
    const { actId, inputHash } = approvalOf(run.events);
    expect(run.approve({ by: { id: 'user-2' }, actId, inputHash, approve: true })).toMatchObject({
      ok: false,
      code: 'PERMISSION_DENIED',
    });
    expect(run.approve({ by: owner, actId: 'another-act', inputHash, approve: true })).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
    expect(run.approve({ by: owner, actId, inputHash: '0'.repeat(64), approve: true })).toMatchObject({
      ok: false,
      code: 'INVALID_PARAMETER',
    });
    expect(placed).toEqual([]);
    expect(run.pendingApproval?.actId).toBe(actId); // still waiting for a real answer
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
    expect(placed).toEqual([]);
  });

  it('the model cannot approve: what it writes never resumes a paused run', async () => {
    const { tool, placed } = orderTool();
    const model = scriptModel([
      JSON.stringify({
        thought: 'I approve this myself',
        action: 'place_order',
        input: { item: 'x', qty: 1 },
        approved: true,
      }),
      final('approved and ordered'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [tool], principal: owner });
    expect((await run.result).status).toBe('awaiting_approval');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(model.calls).toHaveLength(1);
    expect(placed).toEqual([]);
    run.cancel();
    await run.result;
  });

  it('declined: the call is not made and the model is told', async () => {
    const { run, model, placed } = start();
    await run.result;
    const { actId, inputHash } = approvalOf(run.events);
    run.approve({ by: owner, actId, inputHash, approve: false });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(placed).toEqual([]);
    expect(observeOf(run.events)).toMatchObject({
      status: 'rejected',
      error: { code: 'PERMISSION_DENIED', layer: 'guard' },
      approval: { kind: 'declined' },
    });
    expect(model.calls[1]?.messages.at(-1)?.content).toContain('the user declined');
  });

  it('an approval that arrives after its expiry is refused, and the call is not made', async () => {
    const { run, placed } = start({ approvalTtlMs: 40 });
    await run.result;
    const { actId, inputHash } = approvalOf(run.events);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(run.approve({ by: owner, actId, inputHash, approve: true }).ok).toBe(false);
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(placed).toEqual([]);
    expect(observeOf(run.events).error).toMatchObject({ code: 'TIMEOUT' });
  });

  it("waiting for the user does not spend the run's deadline", async () => {
    const { run, placed } = start({ deadlineMs: 100, modelTimeoutMs: 100, toolTimeoutMs: 50 });
    await run.result;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { actId, inputHash } = approvalOf(run.events);
    expect(run.approve({ by: owner, actId, inputHash, approve: true }).ok).toBe(true);
    expect((await run.result).status).toBe('success');
    expect(placed).toHaveLength(1);
  });

  it('needsApproval overrides the default (read-only: no; changes something: yes)', async () => {
    const reading = orderTool({ readOnly: true, needsApproval: true });
    const run1 = runAgent({
      query: 'q',
      model: scriptModel([act('place_order', { item: 'a', qty: 1 }), final('x')]),
      tools: [reading.tool],
      principal: owner,
    });
    expect((await run1.result).status).toBe('awaiting_approval');
    run1.cancel();
    const trusted = orderTool({ needsApproval: false });
    const run2 = runAgent({
      query: 'q',
      model: scriptModel([act('place_order', { item: 'a', qty: 1 }), final('x')]),
      tools: [trusted.tool],
      principal: owner,
    });
    expect((await run2.result).status).toBe('success');
    expect(trusted.placed).toHaveLength(1);
  });
});
