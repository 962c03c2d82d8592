import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, executeAction, runAgent, type Observation, type RunRecord } from 'reins';
import { scriptModel } from 'reins/testing';
import { actEnv, final } from './helpers.js';

// Inputs a model's JSON cannot make but an adapter's objects can: native tool-call arguments
// passed as objects (not depth-capped by the decision parser), cycles, getters.

const observations = (record: RunRecord): Observation[] =>
  record.steps.filter((s) => s.phase === 'observe').map((s) => s.detail.observation as Observation);

const store = (seen: unknown[] = []) =>
  defineTool({
    name: 'store',
    description: 'store',
    input: z.object({ x: z.any(), y: z.any().optional() }),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    run: (input) => {
      seen.push(input);
      return { ok: true };
    },
  });

const nest = (levels: number, leaf: unknown): Record<string, unknown> => {
  let deep: unknown = leaf;
  for (let i = 0; i < levels; i++) deep = { x: deep };
  return deep as Record<string, unknown>;
};

describe('the repeated-action guard on inputs from objects', () => {
  it('two native calls that differ only 70 levels down both run; the same one again is refused', async () => {
    const model = scriptModel([
      { toolCalls: [{ name: 'store', arguments: nest(70, 'a') }] },
      { toolCalls: [{ name: 'store', arguments: nest(70, 'b') }] },
      { toolCalls: [{ name: 'store', arguments: nest(70, 'a') }] },
      final('done'),
    ]);
    const record = await runAgent({ query: 'q', model, tools: [store()] }).result;
    expect(observations(record).map((o) => o.error?.code ?? o.status)).toEqual([
      'ok',
      'ok',
      'REPEATED_ACTION',
    ]);
  });

  it('a cyclic arguments object ends the run with an error, at once (it does not walk it forever)', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.x = cyclic;
    cyclic.y = cyclic;
    const model = scriptModel([{ toolCalls: [{ name: 'store', arguments: cyclic }] }, final('done')]);
    const record = await runAgent({ query: 'q', model, tools: [store()] }).result;
    expect(record.status).toBe('error');
  }, 5_000);
});

describe('an act started from a getter of another act’s input', () => {
  const note = (seen: unknown[]) =>
    defineTool({
      name: 'note',
      description: 'note',
      input: z.object({ title: z.string(), meta: z.object({ body: z.string() }).optional() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      run: (input) => {
        seen.push(input);
        return { ok: true };
      },
    });

  it('keeps its issues and stray keys apart from the outer act’s', async () => {
    const seen: unknown[] = [];
    const env = actEnv([note(seen)]);
    let inner: Promise<Observation> | undefined;
    const input = {
      title: 'x'.repeat(500), // over the 100-character cap: the outer act is refused
      meta: {
        get body() {
          inner = executeAction({ actId: 'inner', tool: 'note', input: { title: 'ok', bogus: 1 } }, env);
          return 'b';
        },
      },
    };
    const outer = await executeAction({ actId: 'outer', tool: 'note', input }, env);
    expect(outer.error?.code).toBe('INVALID_PARAMETER');
    expect(outer.error?.message).toContain('title: too long: 500 characters');
    expect(outer.error?.message).not.toContain('bogus');
    const refused = await inner;
    expect(refused?.error?.message).toContain('bogus');
    expect(refused?.error?.message).not.toContain('too long');
    expect(seen).toEqual([]);
  });
});
