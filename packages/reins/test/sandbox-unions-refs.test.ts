import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ObserveStep, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final } from './helpers.js';

// "a string whose schema sets no `maxLength` may have at most 100 characters" — a string whose
// schema does set one (500 here) is accepted up to it, wherever the schema puts it: inside a
// union, a nullable object or a recursive ($ref) schema the sandbox found no schema and capped it.
const NOTE = 'n'.repeat(150); // within the schema's 500, over the sandbox's default 100

async function callWith(input: z.ZodType, args: Record<string, unknown>) {
  const seen: unknown[] = [];
  const tool = defineTool({
    name: 'save_note',
    description: 'saves a note',
    input: input as z.ZodObject,
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    run: (given) => {
      seen.push(given);
      return { ok: true };
    },
  });
  const run = runAgent({
    query: 'save it',
    model: scriptModel([act('save_note', args), final('saved')]),
    tools: [tool],
  });
  await run.result;
  const observe = run.events.find((e: RunEvent) => e.type === 'step' && e.phase === 'observe') as ObserveStep;
  return { seen, observation: observe.observation };
}

describe('the parameter sandbox honours maxLength set inside unions and references', () => {
  it('a discriminated-union input (oneOf at the top)', async () => {
    const input = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('text'), note: z.string().max(500) }),
      z.object({ kind: z.literal('count'), n: z.number() }),
    ]);
    const { seen, observation } = await callWith(input, { kind: 'text', note: NOTE });
    expect(observation.error).toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it('a nullable object property (anyOf [object, null])', async () => {
    const input = z.object({ entry: z.object({ note: z.string().max(500) }).nullable() });
    const { seen, observation } = await callWith(input, { entry: { note: NOTE } });
    expect(observation.error).toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it('a recursive input ($ref)', async () => {
    type Node = { note: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() =>
      z.object({ note: z.string().max(500), children: z.array(node) }),
    );
    const { seen, observation } = await callWith(z.object({ root: node }), {
      root: { note: NOTE, children: [] },
    });
    expect(observation.error).toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it('still caps a string no branch bounds, and refuses a key no schema names under a $ref', async () => {
    type Node = { note: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() =>
      z.object({ note: z.string().max(500), children: z.array(node) }),
    );
    const union = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('text'), note: z.string() }),
      z.object({ kind: z.literal('count'), n: z.number() }),
    ]);
    const capped = await callWith(union, { kind: 'text', note: NOTE });
    expect(capped.observation.error?.code).toBe('INVALID_PARAMETER');
    expect(capped.seen).toHaveLength(0);
    const stray = await callWith(z.object({ root: node }), {
      root: { note: 'a', children: [{ note: 'b', children: [], space_id: 'other' }] },
    });
    expect(stray.observation.error?.message).toContain('root.children[0].space_id');
    expect(stray.seen).toHaveLength(0);
  });
});
