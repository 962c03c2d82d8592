import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runPlanAgent, type ApprovalEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { final, hangingTool } from '../helpers.js';
import { plan, step } from './plan-tools.js';

const owner = { id: 'user-1' };
const approvalOf = (events: readonly RunEvent[]) =>
  events.find((e): e is ApprovalEvent => e.type === 'approval');

describe('plan runs keep the run bounds of ReAct runs', () => {
  it('a step whose tool changes something waits for its user’s approval of the exact input', async () => {
    const placed: unknown[] = [];
    const order = defineTool({
      name: 'place_order',
      description: 'orders',
      input: z.object({ item: z.string(), qty: z.number().int() }),
      output: z.object({ orderId: z.string() }),
      readOnly: false,
      run: (input) => {
        placed.push(input);
        return { orderId: 'o-1' };
      },
    });
    const model = scriptModel([
      plan([step('s1', 'place_order', { item: 'eggs', qty: 2 })]),
      final('ordered'),
    ]);
    const run = runPlanAgent({ query: 'order eggs', model, tools: [order], principal: owner });
    expect((await run.result).status).toBe('awaiting_approval');
    const approval = approvalOf(run.events);
    expect(approval).toMatchObject({ tool: 'place_order', input: { item: 'eggs', qty: 2 } });
    expect(placed).toEqual([]);
    run.approve({
      by: owner,
      actId: approval?.actId ?? '',
      inputHash: approval?.inputHash ?? '',
      approve: true,
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(placed).toEqual([{ item: 'eggs', qty: 2 }]);
  });

  it('the deadline stops a plan run wherever it is: stopped (deadline), the step timed out', async () => {
    const { tool, seen } = hangingTool({ timeoutMs: 50 });
    // The step times out (50 ms); the answer would take 500 ms, past the 100 ms deadline.
    const model = scriptModel([plan([step('s1', 'hang', {})]), { text: final('late'), delayMs: 500 }]);
    const run = runPlanAgent({
      query: 'x',
      model,
      tools: [tool],
      limits: { deadlineMs: 100, toolTimeoutMs: 50, modelTimeoutMs: 100 },
    });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'deadline', intent: 'notice' });
    expect(seen).toEqual({ started: 1, aborted: 1 });
    expect(record.steps.find((s) => s.phase === 'observe')?.detail).toMatchObject({
      observation: { status: 'timeout' },
    });
  });
});
