import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sandboxWithStrayKeys } from '../src/loop/sandbox-input.js';
import { sandboxInput, strayKeys, type Issue } from '../src/loop/validate-io.js';

/** The two walks in turn: what the one-pass sandbox must give back exactly. */
function inTurn(value: unknown, schema: unknown, cap: number) {
  const issues: Issue[] = [];
  const stray: string[] = [];
  const copy = sandboxInput(value, schema, cap, issues);
  strayKeys(copy, schema, '', stray);
  return { copy, issues, stray };
}

function onePass(value: unknown, schema: unknown, cap: number) {
  const issues: Issue[] = [];
  const stray: string[] = [];
  const copy = sandboxWithStrayKeys(value, schema, cap, issues, stray);
  return { copy, issues, stray };
}

const KEYS = ['a', 'b', 'c', '', '__proto__'] as const;

// JSON Schemas of the kinds zod writes: typed leaves, objects with or without other keys
// allowed, arrays, unions, and a bound on strings here and there.
const schema = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(
      { type: 'string' },
      { type: 'string', maxLength: 5 },
      { type: 'number' },
      { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'number' }] },
      {},
    ),
    fc.record({
      type: fc.constant('object'),
      properties: fc.dictionary(fc.constantFrom(...KEYS), tie('node'), { maxKeys: 3 }),
      additionalProperties: fc.constantFrom(undefined, false, {}, { type: 'string', maxLength: 2 }),
    }),
    fc.record({ type: fc.constant('array'), items: tie('node') }),
  ),
})).node;

const text = fc.oneof(
  fc.constantFrom('x', '  padded  ', 'toolong', ' '.repeat(3) + 'y'.repeat(8)),
  fc.string({ maxLength: 10 }),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.constantFrom(null, true),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS, 'd'), tie('node'), { maxKeys: 4 }),
  ),
})).node;

describe('the one-pass sandbox of a tool input', () => {
  it('gives the same copy, issues and stray keys as the sandbox then the stray-key walk', () => {
    fc.assert(
      fc.property(value, schema, fc.constantFrom(3, 6, 100), (input, inputSchema, cap) => {
        const want = inTurn(input, inputSchema, cap);
        const got = onePass(input, inputSchema, cap);
        expect(got.issues).toEqual(want.issues);
        expect(got.stray).toEqual(want.stray);
        expect(JSON.stringify(got.copy)).toBe(JSON.stringify(want.copy));
        expect(Object.keys(got.copy ?? {})).toEqual(Object.keys(want.copy ?? {}));
        // A second call with the same schema (its plan now cached) agrees too.
        expect(onePass(input, inputSchema, cap)).toEqual(got);
      }),
      { numRuns: 4000 },
    );
  });

  it('copies: the tool never holds the objects the log keeps', () => {
    const input = { a: ' x ', b: { c: [' y '] } };
    const properties = { a: { type: 'string' }, b: { type: 'object', properties: { c: {} } } };
    const got = onePass(input, { type: 'object', properties }, 100);
    expect(got.copy).toEqual({ a: 'x', b: { c: ['y'] } });
    expect((got.copy as { b: unknown }).b).not.toBe(input.b);
    expect(input).toEqual({ a: ' x ', b: { c: [' y '] } });
  });
});
