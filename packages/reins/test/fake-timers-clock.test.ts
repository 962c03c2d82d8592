import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final } from './helpers.js';

// A test file whose first test runs with real timers (the default clock is read then), and
// whose later tests install vitest's fake timers: the common layout of a test suite.
// The default clock held its last real reading (time froze for the fake clock: 0 ms steps).
afterEach(() => vi.useRealTimers());

describe('the default clock under fake timers installed after a real run', () => {
  it('a run with real timers (reads the default clock)', async () => {
    const record = await runAgent({ query: 'q', model: scriptModel([final('hi')]), tools: [] }).result;
    expect(record.status).toBe('success');
  });

  it('times a 400 ms model step as 400 ms, not 0', async () => {
    vi.useFakeTimers();
    const model = scriptModel([{ text: final('slow answer'), delayMs: 400 }]);
    const run = runAgent({ query: 'q', model, tools: [] });
    await vi.advanceTimersByTimeAsync(400);
    const record = await run.result;
    expect(record.status).toBe('success');
    const done = run.events.at(-1) as { durationMs: number };
    expect(done.durationMs).toBeGreaterThanOrEqual(400);
  });

  it('counts the running time before an approval pause against the deadline', async () => {
    vi.useFakeTimers();
    const placed: unknown[] = [];
    const order = defineTool({
      name: 'place_order',
      description: 'orders groceries',
      input: z.object({ item: z.string() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: false,
      run: (input) => {
        placed.push(input);
        return { ok: true };
      },
    });
    // 800 ms of model time before the pause and 800 ms after it: 1 600 ms of running time
    // against a 1 000 ms deadline (the time waiting for the user does not count).
    const model = scriptModel([
      { text: act('place_order', { item: 'eggs' }), delayMs: 800 },
      { text: final('ordered'), delayMs: 800 },
    ]);
    const owner = { id: 'u1' };
    const run = runAgent({
      query: 'order eggs',
      model,
      tools: [order],
      principal: owner,
      limits: { deadlineMs: 1_000, modelTimeoutMs: 1_000, toolTimeoutMs: 500 },
    });
    await vi.advanceTimersByTimeAsync(800);
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_approval');
    const pending = run.pendingApproval!;
    expect(
      run.approve({ by: owner, actId: pending.actId, inputHash: pending.inputHash, approve: true }).ok,
    ).toBe(true);
    await vi.advanceTimersByTimeAsync(800);
    const record = await run.result;
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('deadline');
  });
});
