import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { decisionSchema, defineTool, loadLazyParts, toolSpec, type AnyTool } from 'reins';
import { isZodObject } from '../src/util/zod-duck.js';

// `import('reins')` loads no zod: core works on users' schemas through their own methods and
// loads zod itself only for `decisionSchema` and schemas without `toJSONSchema()`. Order
// matters in this file: module state is per test file, and reins has not loaded zod before
// the first tests (no run has started, nothing called `loadLazyParts`).

const SCHEMAS: Record<string, z.ZodType> = {
  object: z.object({ city: z.string().trim().min(1).max(100).describe('City name') }),
  strict: z.strictObject({ n: z.number().int().nonnegative(), tags: z.array(z.string()).max(3).optional() }),
  nested: z.object({ at: z.object({ lat: z.number(), lon: z.number() }), when: z.iso.datetime().optional() }),
  defaults: z.object({ limit: z.number().default(10), kind: z.enum(['a', 'b']).default('a') }),
  union: z.union([z.object({ id: z.string() }), z.object({ name: z.string() })]),
  transformed: z.object({ q: z.string() }).transform((v) => ({ query: v.q })),
  record: z.record(z.string(), z.number()),
  nullable: z.object({ note: z.string().nullable(), email: z.email().meta({ title: 'Email' }) }),
};

const tool = (name: string, input: z.ZodType): AnyTool =>
  defineTool({ name, description: name, input, output: z.object({}), readOnly: true, run: () => ({}) });

/** What `toolSpec` used to compute with zod's own function. */
function zodInputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

const mini = zm.object({ city: zm.string() }) as unknown as z.ZodType; // zod/mini: no methods, so no toJSONSchema()

describe('before reins has loaded zod', () => {
  it('decisionSchema says it needs zod loaded, rather than failing obscurely', () => {
    expect(() => decisionSchema.safeParse({ final: 'ok' })).toThrow(/await loadLazyParts\(\)/);
  });

  it('a schema without toJSONSchema() cannot be described yet: toolSpec throws, naming the tool', () => {
    expect(() => toolSpec(tool('mini_tool', mini))).toThrow(/tool mini_tool: .*await loadLazyParts\(\)/);
  });

  it("toolSpec describes zod schemas through their own toJSONSchema(), exactly as zod's function did", () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      const declared = tool(name, schema);
      // Compared as JSON: the key order is what the model is shown.
      expect({ name, spec: JSON.stringify(toolSpec(declared).inputSchema) }).toEqual({
        name,
        spec: JSON.stringify(zodInputSchema(declared.input)),
      });
    }
  });

  it('an object input is made strict without zod: the duck check is `instanceof z.ZodObject`', () => {
    const schemas = [...Object.values(SCHEMAS), z.looseObject({}), z.string(), mini];
    for (const schema of schemas) expect(isZodObject(schema)).toBe(schema instanceof z.ZodObject);
    const city = tool('city', SCHEMAS.object as z.ZodType);
    expect(city.input.safeParse({ city: 'Paris', space_id: 'x' }).success).toBe(false);
    expect(city.input.safeParse({ city: 'Paris' }).success).toBe(true);
  });
});

describe('once zod is loaded', () => {
  it('decisionSchema is the zod schema itself: it parses, composes and converts', async () => {
    const early = decisionSchema;
    await loadLazyParts();
    expect(decisionSchema).not.toBe(early); // the live binding now holds the real schema
    expect(decisionSchema.safeParse({ final: 'ok' })).toEqual({
      success: true,
      data: { kind: 'final', thought: '', final: 'ok' },
    });
    expect(early.safeParse({ final: ' ' }).success).toBe(false); // a stand-in kept earlier forwards
    expect(z.object({ d: decisionSchema }).parse({ d: { ask: 'which?' } })).toEqual({
      d: { kind: 'ask', thought: '', ask: 'which?' },
    });
    expect(z.toJSONSchema(decisionSchema, { io: 'input' })).toMatchObject({ type: 'object' });
  });

  it('a schema without toJSONSchema() is described with zod’s own function', () => {
    expect(toolSpec(tool('mini_late', mini)).inputSchema).toEqual(zodInputSchema(mini));
  });
});
