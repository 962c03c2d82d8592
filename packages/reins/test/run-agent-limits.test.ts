import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, runAgent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, countingAdd, final, hangingTool } from './helpers.js';

describe('maxSteps', () => {
  it('makes at most maxSteps model calls, offers no tools on the last and says so, then stops', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([1, 2, 3, 4, 5, 6].map((n) => act('add', { a: n, b: 1 })));
    const record = await runAgent({ query: 'add forever', model, tools: [tool], limits: { maxSteps: 3 } })
      .result;

    expect(model.calls).toHaveLength(3);
    expect(calls).toHaveLength(2); // maxSteps − 1 tool rounds
    expect(model.calls.map((c) => c.tools.length)).toEqual([1, 1, 0]);
    expect(model.calls.map((c) => c.finalStep)).toEqual([false, false, true]);
    expect(model.calls[2]?.messages[0]?.content).toContain('This is your last step: no tools are available');
    expect(model.calls[0]?.messages[0]?.content).not.toContain('This is your last step');
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('max_steps');
    expect(record.final_answer).toContain('step limit (3 model steps)');
  });

  it('defaults to 4 model steps', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([1, 2, 3, 4, 5].map((n) => act('add', { a: n, b: 0 })));
    const record = await runAgent({ query: 'q', model, tools: [tool] }).result;
    expect(DEFAULT_LIMITS.maxSteps).toBe(4);
    expect(model.calls).toHaveLength(4);
    expect(calls).toHaveLength(3);
    expect(record.model_steps).toBe(4);
  });

  it('succeeds when the model answers on the last step', async () => {
    const { tool } = countingAdd();
    const model = scriptModel([act('add', { a: 1, b: 2 }), final('3')]);
    const record = await runAgent({ query: 'q', model, tools: [tool], limits: { maxSteps: 2 } }).result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('3');
    model.assertComplete();
  });
});

describe('repeated-action guard', () => {
  it('does not execute a canonically equal action twice and forces the final step', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([
      act('add', { a: 1, b: 2 }),
      JSON.stringify({ thought: 'again', action: 'add', input: { b: 2, a: 1 } }), // same input, keys reordered
      final('3'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [tool], limits: { maxSteps: 6 } });
    const record = await run.result;

    expect(calls).toHaveLength(1);
    const refused = run.events.find((e) => e.type === 'step' && e.phase === 'observe' && e.index === 2);
    expect(refused?.type === 'step' && refused.phase === 'observe' && refused.observation).toMatchObject({
      status: 'rejected',
      source: 'runtime',
      error: { code: 'REPEATED_ACTION', layer: 'guard' },
    });
    expect(model.calls[2]?.tools).toEqual([]); // degraded to a final answer
    expect(model.calls[2]?.finalStep).toBe(true);
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('3');
  });

  it('stops with repeated_action when the model keeps acting after the refusal', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([
      act('add', { a: 1, b: 2 }),
      act('add', { a: 1, b: 2 }),
      act('add', { a: 9, b: 9 }),
    ]);
    const record = await runAgent({ query: 'q', model, tools: [tool], limits: { maxSteps: 8 } }).result;
    expect(calls).toHaveLength(1);
    expect(model.calls).toHaveLength(3);
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('repeated_action');
  });

  it('lets the same tool run again with a different input', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([act('add', { a: 1, b: 2 }), act('add', { a: 1, b: 3 }), final('ok')]);
    await runAgent({ query: 'q', model, tools: [tool] }).result;
    expect(calls.map((c) => c.input)).toEqual([
      { a: 1, b: 2 },
      { a: 1, b: 3 },
    ]);
  });
});

describe('deadline', () => {
  it('stops the run when the wall-clock deadline passes, aborting the tool in flight', async () => {
    // Timeouts nest (tool 100 × 1.5 ≤ model 150 ≤ run 160), yet a slow first step (100 ms)
    // leaves the tool only 60 ms before the deadline: the deadline, not the tool's own
    // timeout, stops it.
    const { tool, seen } = hangingTool({ timeoutMs: 100 });
    const model = scriptModel([{ text: act('hang', {}), delayMs: 100 }, final('never')]);
    const limits = { deadlineMs: 160, modelTimeoutMs: 150 };
    const record = await runAgent({ query: 'q', model, tools: [tool], limits }).result;
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('deadline');
    expect(record.final_answer).toContain('deadline (160 ms)');
    expect(seen).toEqual({ started: 1, aborted: 1 });
    expect(model.calls).toHaveLength(1); // no model call after the deadline
  });

  it('aborts a slow model call at the deadline', async () => {
    const model = scriptModel([{ text: final('late'), delayMs: 30_000 }]);
    const record = await runAgent({ query: 'q', model, tools: [], limits: { deadlineMs: 30 } }).result;
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('deadline');
    expect(model.calls[0]?.signal.aborted).toBe(true);
  });
});

describe('per-tool timeout', () => {
  it('turns a hung tool into a timeout observation, aborts its signal and lets the loop go on', async () => {
    const { tool, seen } = hangingTool({ timeoutMs: 20, honourSignal: false });
    const model = scriptModel([act('hang', {}), final('gave up on hang')]);
    const run = runAgent({ query: 'q', model, tools: [tool] });
    const record = await run.result;
    const observe = record.steps.find((s) => s.phase === 'observe');
    expect(observe?.detail.observation).toMatchObject({ status: 'timeout', error: { code: 'TIMEOUT' } });
    expect(seen.aborted).toBe(1);
    expect(record.status).toBe('success');
    expect(model.calls[1]?.messages.at(-1)?.content).toContain('"code":"TIMEOUT"');
  });

  it('uses the run-wide toolTimeoutMs for tools that declare none', async () => {
    const { tool } = hangingTool();
    const model = scriptModel([act('hang', {}), final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [tool], limits: { toolTimeoutMs: 15 } }).result;
    expect(record.steps.find((s) => s.phase === 'observe')?.detail.observation).toMatchObject({
      status: 'timeout',
    });
  });
});

describe('cancellation', () => {
  it('an aborted signal stops a model call at once and ends the run cancelled', async () => {
    const controller = new AbortController();
    const model = scriptModel([{ text: final('late'), delayMs: 30_000 }]);
    const run = runAgent({ query: 'q', model, tools: [], signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const record = await run.result;
    expect(record.status).toBe('cancelled');
    expect(model.calls[0]?.signal.aborted).toBe(true);
    expect(record.final_answer).toContain('cancelled after 0 completed step');
  });

  it('cancel() during a tool call aborts the tool and starts no further model call', async () => {
    const { tool, seen } = hangingTool({ timeoutMs: 30_000 });
    const model = scriptModel([act('hang', {}), final('never')]);
    const run = runAgent({ query: 'q', model, tools: [tool] });
    for await (const event of run) if (event.type === 'step' && event.phase === 'act') run.cancel();
    const record = await run.result;
    expect(record.status).toBe('cancelled');
    expect(seen.aborted).toBe(1);
    expect(model.calls).toHaveLength(1);
    expect(model.remaining).toBe(1);
  });

  it('a signal aborted before the start runs nothing', async () => {
    const model = scriptModel([final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [], signal: AbortSignal.abort() }).result;
    expect(record.status).toBe('cancelled');
    expect(model.calls).toHaveLength(0);
  });
});

describe('limit configuration', () => {
  it('refuses limits that would disable a bound', () => {
    const model = scriptModel([]);
    expect(() => runAgent({ query: 'q', model, tools: [], limits: { maxSteps: 0 } })).toThrow(RangeError);
    const typo = { maxStep: 3 } as unknown as { maxSteps: number };
    expect(() => runAgent({ query: 'q', model, tools: [], limits: typo })).toThrow(/unknown limit "maxStep"/);
    expect(() =>
      runAgent({ query: 'q', model, tools: [], limits: { deadlineMs: Number.POSITIVE_INFINITY } }),
    ).toThrow(/deadlineMs/);
  });

  it('reports the limits in the start event and the record', async () => {
    const model = scriptModel([final('x')]);
    const run = runAgent({ query: 'q', model, tools: [], limits: { maxSteps: 5, deadlineMs: 1234 } });
    const record = await run.result;
    expect(run.events[0]).toMatchObject({ type: 'start', limits: { maxSteps: 5, deadlineMs: 1234 } });
    expect(record.limits).toMatchObject({ maxSteps: 5, deadlineMs: 1234 });
  });
});
