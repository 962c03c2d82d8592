import { afterEach, describe, expect, it, vi } from 'vitest';
import { runAgent, type Model } from 'reins';

// Runs of one deadline length share one queued timer. A run left in flight under one timer
// implementation (vitest's fake clock, uninstalled afterwards) must not take the deadline of
// every later run of that length with it (the queue trusted a timer set on timers now gone).
const never: Model = { name: 'never', call: () => new Promise(() => {}) };
const limits = { deadlineMs: 700, modelTimeoutMs: 700 };

afterEach(() => vi.useRealTimers());

describe('deadlines of runs started under different timer implementations', () => {
  it('a run left in flight under fake timers (the test moves on without cancelling it)', async () => {
    vi.useFakeTimers();
    const run = runAgent({ query: 'left behind', model: never, tools: [], limits });
    await vi.advanceTimersByTimeAsync(100);
    expect(run.events.map((e) => e.type)).toEqual(['start']);
  });

  it('a later run with real timers still stops at its own deadline', async () => {
    const run = runAgent({ query: 'q', model: never, tools: [], limits });
    const ended = await Promise.race([
      run.result.then((record) => `${record.status}/${record.stop_reason}`),
      new Promise((resolve) => setTimeout(() => resolve('still running after 2 s'), 2_000)),
    ]);
    expect(ended).toBe('stopped/deadline');
  });
});
