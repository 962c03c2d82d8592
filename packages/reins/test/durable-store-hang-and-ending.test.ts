import { describe, expect, it } from 'vitest';
import { interruptedEnding, resolveLimits, runAgent, runPlanAgent, type RunEvent } from '../src/index.js';
import { scriptModel } from 'reins/testing';
import { act, countingTools, final, recordingSink } from './durable/fixtures.js';
import { claimsTools } from './plan/plan-tools.js';

const settledWithin = <T>(p: Promise<T>, ms: number): Promise<T | 'hung'> =>
  Promise.race([p, new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms))]);

describe('durable runs: a store that hangs, and the ending of an interrupted run', () => {
  // Contract: log-writer.ts:22-27 "after releaseAfterMs of failure the waiting events are published
  // anyway, so a store outage delays clients but never hangs them", docs/durable-state.md "a store
  // failing for longer than 5 s ... the run's events are then shown unstored rather than hanging
  // clients". A store that stops answering (a stuck connection, a pool that never hands out a
  // client) is an outage too, but LogWriter.#drain (log-writer.ts:86) awaits the sink with no bound.
  it('a sink that never answers does not hang the run: result settles after releaseAfterMs', async () => {
    const run = runAgent({
      query: 'q',
      model: scriptModel([final('fine')]),
      tools: [],
      durable: { sink: () => new Promise<void>(() => undefined), releaseAfterMs: 100 },
    });
    const record = await settledWithin(run.result, 2_000);
    expect(record).not.toBe('hung');
    expect(await settledWithin(run.persisted(), 500)).toBe(false);
  });

  // Contract: durable-run.ts:146-150 "done {stopped, interrupted} with the history's steps and
  // usage"; a plan run's own `done` counts its planner's model call in `steps` and `usage`
  // (run-plan.ts:305-306, 313, 330). endingOf (durable-run.ts:171-178) sums `reason` events only,
  // so an interrupted plan run reports no model step and no tokens although its planner ran.
  it('interruptedEnding of a plan run counts its planner call in steps and usage', async () => {
    const { tools } = claimsTools();
    const { sink, stored } = recordingSink();
    const planReply = {
      text: JSON.stringify({
        steps: [{ id: 's1', action: 'find_policy', input: { insured: '张三' }, dependsOn: [] }],
      }),
      usage: { inputTokens: 100, outputTokens: 40 },
    };
    const run = runPlanAgent({
      query: '查张三的保单',
      model: scriptModel([
        planReply,
        { text: final('P2024001'), usage: { inputTokens: 7, outputTokens: 3 } },
      ]),
      tools,
      durable: { sink },
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    await run.persisted();
    const done = stored.at(-1) as Extract<RunEvent, { type: 'done' }>;
    expect(done.usage.inputTokens).toBe(107); // the planner's call is counted by the run itself
    // Crash after the plan ran (its step observed), before the responder answered.
    const lastObserve = stored.findLastIndex((e) => e.type === 'step' && e.phase === 'observe');
    const history = stored.slice(0, lastObserve + 1);
    const ending = interruptedEnding(run.runId, history, resolveLimits({}), Date.now());
    const endDone = ending.at(-1) as Extract<RunEvent, { type: 'done' }>;
    expect(endDone.steps).toBe(1);
    expect(endDone.usage).toEqual({ inputTokens: 100, outputTokens: 40 });
  });

  // Contract: durable-run.ts:140-146 "The events that end a run found running after a restart ...
  // so the run never silently disappears"; the loop itself tolerates a reply without `usage`
  // ("a broken adapter may leave it out", kept-prompt.ts:23; run-loop.ts:231), so such a reason
  // event is in the stored log (usage: undefined, dropped by JSON). endingOf (durable-run.ts:176)
  // reads `event.usage.inputTokens` and throws a TypeError: the interrupted run cannot be ended.
  it('interruptedEnding of a history whose model reply had no usage still ends the run', async () => {
    const { tools } = countingTools();
    const { sink, stored } = recordingSink();
    const model = {
      name: 'no-usage',
      call: async () => ({ ok: true as const, text: act('lookup', { q: 'x' }) }),
    } as unknown as Parameters<typeof runAgent>[0]['model'];
    const run = runAgent({ query: 'q', model, tools, durable: { sink }, limits: { maxSteps: 2 } });
    await run.result;
    await run.persisted();
    const history = structuredClone(
      stored.slice(0, stored.findIndex((e) => e.type === 'step' && e.phase === 'reason') + 1),
    );
    expect(() => interruptedEnding(run.runId, history, resolveLimits({}), Date.now())).not.toThrow();
  });
});
