import { describe, expect, it } from 'vitest';
import { runAgent, timeoutHierarchy, DEFAULT_LIMITS } from 'reins';
import { scriptModel } from 'reins/testing';
import { blankTool, final } from './helpers.js';

const tool = (name: string, timeoutMs?: number) =>
  blankTool(name, timeoutMs === undefined ? {} : { timeoutMs });

describe('the timeout hierarchy: tool × tries × 1.5 ≤ model call ≤ run deadline', () => {
  it('computes the model timeout from the slowest tool when none is configured', () => {
    expect(timeoutHierarchy(DEFAULT_LIMITS, [tool('a', 1_000), tool('slow', 28_000)])).toEqual({
      toolBudgetMs: 42_000,
      slowestTool: 'slow',
      modelTimeoutMs: 42_000,
      deadlineMs: 60_000,
    });
    expect(timeoutHierarchy(DEFAULT_LIMITS, []).modelTimeoutMs).toBe(30_000);
    expect(timeoutHierarchy(DEFAULT_LIMITS, [tool('plain')]).toolBudgetMs).toBe(22_500); // toolTimeoutMs 15 s
  });

  it('runs with one configuration share its (frozen) hierarchy; other tools or limits get their own', async () => {
    const timeoutsOf = async (tools: ReturnType<typeof tool>[], limits = {}) => {
      const run = runAgent({ query: 'q', model: scriptModel([final('x')]), tools, limits });
      await run.result;
      const start = run.events[0];
      return start?.type === 'start' ? start.timeouts : undefined;
    };
    const tools = [tool('a', 1_000)];
    const first = await timeoutsOf(tools, { maxSteps: 3 });
    expect(await timeoutsOf(tools, { maxSteps: 3 })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    tools.push(tool('slow', 20_000)); // the same array, changed: a new tool set
    expect(await timeoutsOf(tools, { maxSteps: 3 })).toMatchObject({
      slowestTool: 'slow',
      toolBudgetMs: 30_000,
    });
    expect(await timeoutsOf(tools, { maxSteps: 3, deadlineMs: 40_000 })).toMatchObject({
      deadlineMs: 40_000,
    });
  });

  it('refuses a configuration that does not nest, naming the tool', () => {
    const model = scriptModel([]);
    expect(() => runAgent({ query: 'q', model, tools: [tool('ocr', 50_000)] })).toThrow(
      /tool ocr's timeout × 1 tries × 1.5 = 75000 ms/,
    );
    expect(() => runAgent({ query: 'q', model, tools: [], limits: { modelTimeoutMs: 90_000 } })).toThrow(
      /must not exceed the run deadline \(60000 ms\)/,
    );
    expect(() =>
      runAgent({ query: 'q', model, tools: [tool('t', 10_000)], limits: { modelTimeoutMs: 10_000 } }),
    ).toThrow(/at least tool t's timeout/);
  });

  it('is reported in the start event and handed to the model as its timeout', async () => {
    const model = scriptModel([final('x')]);
    const run = runAgent({ query: 'q', model, tools: [tool('t', 2_000)], limits: { modelTimeoutMs: 5_000 } });
    await run.result;
    expect(run.events[0]).toMatchObject({
      type: 'start',
      timeouts: { toolBudgetMs: 3_000, slowestTool: 't', modelTimeoutMs: 5_000, deadlineMs: 60_000 },
    });
    expect(model.calls[0]?.timeoutMs).toBe(5_000);
  });
});
