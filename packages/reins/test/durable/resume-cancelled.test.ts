import { describe, expect, it } from 'vitest';
import { runAgent, runPlanAgent, type RunRecord } from 'reins';
import { plan, step } from '../plan/plan-tools.js';
import { act, countingTools, final, recordingSink, stepModel } from './fixtures.js';

const owner = { id: 'user-1' };

const needingApproval = (tools: ReturnType<typeof countingTools>['tools']) =>
  tools.map((t) => (t.name === 'place_order' ? { ...t, needsApproval: true } : t));

/** `promise`, or `'hung'` after `ms`. */
const within = <T>(promise: Promise<T>, ms = 1_000): Promise<T | 'hung'> =>
  Promise.race([promise, new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms))]);

describe('a pause ended by a cancel, replayed', () => {
  it('a run cancelled during its approval pause, rebuilt from a log cut after its resume, ends cancelled without going on', async () => {
    const first = countingTools();
    const { sink, stored } = recordingSink();
    const script = [act('place_order', { item: 'milk' }), final('ordered milk')];
    const run = runAgent({
      query: 'order milk',
      model: stepModel(script),
      tools: needingApproval(first.tools),
      principal: owner,
      runId: 'r-cancelled',
      durable: { sink },
    });
    expect((await run.result).status).toBe('awaiting_approval');
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
    expect(await run.persisted()).toBe(true);
    const resumeAt = stored.findIndex((e) => e.type === 'resume');
    expect(stored[resumeAt]).toMatchObject({ outcome: { kind: 'cancelled' } });
    // The process dies after the resume was stored, before the run's end was.
    for (let cut = resumeAt + 1; cut < stored.length; cut++) {
      const history = structuredClone(stored.slice(0, cut));
      const again = countingTools();
      const model = stepModel(script);
      const rebuilt = runAgent({
        query: 'order milk',
        model,
        tools: needingApproval(again.tools),
        principal: owner,
        runId: 'r-cancelled',
        durable: recordingSink(),
        history,
      });
      const record = await within(rebuilt.result);
      expect(record, `cut ${cut}`).not.toBe('hung');
      expect((record as RunRecord).status, `cut ${cut}`).toBe('cancelled');
      expect(model.steps, `cut ${cut}`).toEqual([]); // the cancelled run asks the model nothing more
      expect(again.total('place_order')).toBe(0);
    }
  });

  it('a plan run cancelled during its approval pause, rebuilt from a log cut after its resume, ends cancelled', async () => {
    const first = countingTools();
    const { sink, stored } = recordingSink();
    const script = [plan([step('s1', 'place_order', { item: 'milk' })]), final('ordered milk')];
    const run = runPlanAgent({
      query: 'order milk',
      model: stepModel(script),
      tools: needingApproval(first.tools),
      principal: owner,
      runId: 'p-cancelled',
      durable: { sink },
    });
    expect((await run.result).status).toBe('awaiting_approval');
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
    expect(await run.persisted()).toBe(true);
    const resumeAt = stored.findIndex((e) => e.type === 'resume');
    for (let cut = resumeAt + 1; cut < stored.length; cut++) {
      const again = countingTools();
      const model = stepModel(script);
      const rebuilt = runPlanAgent({
        query: 'order milk',
        model,
        tools: needingApproval(again.tools),
        principal: owner,
        runId: 'p-cancelled',
        durable: recordingSink(),
        history: structuredClone(stored.slice(0, cut)),
      });
      const record = await within(rebuilt.result);
      expect((record as RunRecord).status, `cut ${cut}`).toBe('cancelled');
      expect(model.steps, `cut ${cut}`).toEqual([]);
      expect(again.total('place_order')).toBe(0);
    }
  });
});
