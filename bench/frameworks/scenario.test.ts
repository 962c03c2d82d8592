// Correctness only, never timing: every framework's scripted model follows scenario.js, and
// Reins and the hand loop replay loop-overhead's script — this checks the two definitions agree.
// Needs nothing from bench/frameworks/node_modules (runs with `npm test`, against the sources).
import { describe, expect, it } from 'vitest';
import { expectedAnswer as loopAnswer, scriptFor } from '../loop-overhead/workload.js';
import {
  Gate,
  MEMORY_BLOCK_AFTER_TOOL_RESULTS,
  MEMORY_K,
  check,
  decide,
  expectedAnswer,
  gating,
  nextMove,
} from './scenario.js';

describe('bench/frameworks scenario', () => {
  it.each([3, 4, 20])('is the loop-overhead script, move by move (K=%i)', (k) => {
    const script = scriptFor(k).map(
      (reply) => JSON.parse(reply) as { action?: string; input?: unknown; final?: string },
    );
    expect(script).toHaveLength(k);
    script.forEach((reply, toolResults) => {
      const move = nextMove(k, toolResults);
      if (move.kind === 'tool')
        expect({ action: 'add', input: move.input }).toEqual({ action: reply.action, input: reply.input });
      else expect(move.text).toBe(reply.final);
    });
    expect(expectedAnswer(k)).toBe(loopAnswer(k));
  });

  it('gives K-1 distinct tool inputs whose running sum is the answer', () => {
    const k = 20;
    const inputs = Array.from({ length: k - 1 }, (_, i) => nextMove(k, i));
    expect(new Set(inputs.map((m) => JSON.stringify(m))).size).toBe(k - 1);
    const last = inputs.at(-1);
    if (last?.kind !== 'tool') throw new Error('expected a tool move');
    expect(expectedAnswer(k)).toBe(`The total is ${last.input.a + last.input.b}.`);
  });

  it('check() rejects a wrong answer or a wrong number of tool calls', () => {
    expect(() => check({ answer: expectedAnswer(3), toolCalls: 2 }, 3, 'x')).not.toThrow();
    expect(() => check({ answer: expectedAnswer(3), toolCalls: 3 }, 3, 'x')).toThrow(/K=3/);
    expect(() => check({ answer: 'The total is 4.', toolCalls: 2 }, 3, 'x')).toThrow(/K=3/);
  });

  it('blocks at the gate only after three tool steps, until it opens', async () => {
    const gate = new Gate();
    gating.gate = gate;
    try {
      expect(decide(MEMORY_K, MEMORY_BLOCK_AFTER_TOOL_RESULTS - 1)).toEqual(nextMove(MEMORY_K, 2));
      const blocked = decide(MEMORY_K, MEMORY_BLOCK_AFTER_TOOL_RESULTS);
      expect(gate.waiting).toBe(1);
      gate.open();
      expect(await blocked).toEqual({ kind: 'final', text: expectedAnswer(MEMORY_K) });
      expect(gate.waiting).toBe(0);
    } finally {
      gating.gate = undefined;
    }
  });
});
