import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, ToolError, type RunEvent, type RunRecord } from 'reins';
import { act, final, recordingSink, stepModel } from './fixtures.js';

const owner = { id: 'user-1' };

/** A primary that needs approval and is down, and its fallback, which needs approval too. */
function orderTools() {
  const calls: string[] = [];
  const input = z.object({ item: z.string() });
  const output = z.object({ orderId: z.string() });
  const primary = defineTool({
    name: 'order_a',
    description: 'Orders at shop A.',
    input,
    output,
    readOnly: false,
    needsApproval: true,
    fallback: { tool: 'order_b', lost: 'shop A prices' },
    run: () => {
      calls.push('order_a');
      throw new ToolError('SERVICE_UNAVAILABLE', 'shop A is down');
    },
  });
  const backup = defineTool({
    name: 'order_b',
    description: 'Orders at shop B.',
    input,
    output,
    readOnly: false,
    needsApproval: true,
    run: ({ item }) => {
      calls.push('order_b');
      return { orderId: `b-${item}` };
    },
  });
  return { tools: [primary, backup], calls };
}

describe('a fallback that needs approval (it shares its primary act id)', () => {
  it('a run rebuilt while waiting for the fallback approval ends with a complete log (its recorded pause is not taken for its end)', async () => {
    const first = orderTools();
    const { sink, stored } = recordingSink();
    const script = [act('order_a', { item: 'milk' }), final('ordered milk at B')];
    const run = runAgent({
      query: 'order milk',
      model: stepModel(script),
      tools: first.tools,
      principal: owner,
      runId: 'r-fallback',
      durable: { sink },
    });
    expect((await run.result).status).toBe('awaiting_approval');
    const a = run.pendingApproval;
    run.approve({ by: owner, actId: a?.actId ?? '', inputHash: a?.inputHash ?? '', approve: true });
    expect((await run.result).status).toBe('awaiting_approval'); // the fallback's approval
    expect(run.pendingApproval?.tool).toBe('order_b');
    expect(await run.persisted()).toBe(true);
    const history: RunEvent[] = structuredClone(stored);

    const again = orderTools();
    const rebuiltSink = recordingSink();
    rebuiltSink.stored.push(...structuredClone(history));
    const rebuilt = runAgent({
      query: 'order milk',
      model: stepModel(script),
      tools: again.tools,
      principal: owner,
      runId: 'r-fallback',
      durable: { sink: rebuiltSink.sink },
      history,
    });
    // The primary's failure is not logged (only its fallback's approval shows it ended): the
    // approved primary may have run, so the rebuilt run stops for a person to check — with a
    // complete log that ends the run, not the recorded pause taken for its end.
    // Read only once the run has ended: its result is ready at once (not waiting for a stop).
    for (let i = 0; i < 100 && rebuiltSink.stored.at(-1)?.type !== 'done'; i++)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 10));
    const read = await Promise.race([
      rebuilt.result,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 1_000)),
    ]);
    expect(read).not.toBe('hung');
    const record = read as RunRecord;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'outcome_unknown' });
    expect(again.calls).toEqual([]);
    const log = rebuiltSink.stored;
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i));
    expect(log.slice(0, history.length)).toEqual(history);
    expect(log.at(-1)).toMatchObject({ type: 'done', status: 'stopped', stopReason: 'outcome_unknown' });
    expect(rebuilt.events.at(-1)).toMatchObject({ type: 'done', status: 'stopped' });
  });
});
