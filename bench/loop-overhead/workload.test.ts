// Correctness only, never timing: the benchmark compares like with like. Under vitest 'reins'
// resolves to the sources (vitest.config.ts); the benchmark itself imports the built package.
import { describe, expect, it } from 'vitest';
import {
  Gate,
  GatedScriptModel,
  QUERY,
  TOOLS,
  addCalls,
  expectedAnswer,
  handLoop,
  reinsEvents,
  reinsResult,
  runHand,
  runReins,
  scriptFor,
  startReins,
} from './workload.js';

describe('loop-overhead workloads', () => {
  it.each([3, 20])('reins and the hand loop give the same answer and tool calls (K=%i)', async (k) => {
    addCalls.count = 0;
    const reins = await runReins(k);
    const reinsCalls = addCalls.count;
    addCalls.count = 0;
    const hand = await runHand(k);
    const handCalls = addCalls.count;

    expect(reins).toEqual({ answer: expectedAnswer(k), toolCalls: k - 1, steps: k });
    expect(hand).toEqual(reins);
    expect(reinsCalls).toBe(k - 1);
    expect(handCalls).toBe(k - 1);
  });

  it('following the events gives the same outcome as the record', async () => {
    const run = startReins(20);
    expect(await reinsEvents(run)).toEqual(await reinsResult(run));
  });

  it('every scripted step calls the tool with a different input (the repeat guard never fires)', () => {
    const inputs = scriptFor(20)
      .slice(0, -1)
      .map((reply) => JSON.stringify((JSON.parse(reply) as { input: unknown }).input));
    expect(new Set(inputs).size).toBe(19);
  });

  it('the gated models block at their call until the gate opens, then finish', async () => {
    const gate = new Gate();
    const reins = reinsResult(startReins(3, new GatedScriptModel(scriptFor(3), 2, gate)));
    const hand = handLoop(new GatedScriptModel(scriptFor(3), 2, gate), TOOLS, QUERY, 3);
    while (gate.waiting < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    gate.open();
    expect(await reins).toEqual(await hand);
  });

  it('the gated model honours the abort signal while blocked', async () => {
    const gate = new Gate();
    const run = startReins(3, new GatedScriptModel(scriptFor(3), 2, gate));
    while (gate.waiting < 1) await new Promise((resolve) => setTimeout(resolve, 1));
    run.cancel();
    const record = await run.result;
    expect(record.status).toBe('cancelled');
    expect(gate.waiting).toBe(0);
  });
});
