import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainJson } from '../../src/codec/plain-json.js';

/** What JSON makes of a value, and where it has to ask the value (`toJSON`, class instances). */
const odd = fc.constantFrom(
  undefined,
  -0,
  NaN,
  Infinity,
  () => 1,
  Symbol('s'),
  new Date(0),
  new Map([[1, 2]]),
  { toJSON: () => 'mine' },
  // A kept prompt is one of these: JSON calls toJSON with the key, and not the result's own.
  { toJSON: (key: string) => ({ key, at: new Date(1) }) },
  { toJSON: () => ({ toJSON: () => 'never called', x: 1 }) },
  new (class Kept {
    toJSON(): unknown {
      return { parts: [{ role: 'system', content: 's' }], count: 1, skipped: undefined };
    }
  })(),
  Object.create(null) as object,
  [1, , 3], // eslint-disable-line no-sparse-arrays -- a hole, which JSON writes as null
);
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    odd,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', '__proto__', '1', 'toJSON'), tie('value'), { maxKeys: 4 }),
  ),
})).value;
const event = fc.dictionary(fc.constantFrom('type', 'data', '__proto__', '0', 'at'), value, { maxKeys: 5 });

describe('plainJson: an event as JSON gives it back, without the round trip', () => {
  it('equals JSON.parse(JSON.stringify(event)), key order included', () => {
    fc.assert(
      fc.property(event, (e) => {
        const expected = JSON.parse(JSON.stringify(e)) as unknown;
        const plain = plainJson(e);
        expect(plain).toStrictEqual(expected);
        expect(JSON.stringify(plain)).toBe(JSON.stringify(e));
        expect(Object.keys(plain)).toEqual(Object.keys(expected as object));
      }),
      { numRuns: 2000 },
    );
  });

  it('shares what is JSON already and leaves the objects of the caller as they were', () => {
    const limits = { maxSteps: 4, deadlineMs: 60000 };
    const usage = { inputTokens: 1, outputTokens: undefined };
    const e = { type: 'start', limits, usage, tools: ['a', 'b'], at: -0 };
    const plain = plainJson(e);
    expect(plain).not.toBe(e);
    expect(plain['limits']).toBe(limits);
    expect(plain['tools']).toBe(e.tools);
    expect(plain['usage']).toEqual({ inputTokens: 1 });
    expect(Object.is(plain['at'], 0)).toBe(true);
    expect(Object.keys(usage)).toEqual(['inputTokens', 'outputTokens']);
    // A value with toJSON (a kept prompt) is asked, not sent through a JSON round trip.
    const built = { parts: [{ role: 'system', content: 'long' }], count: 1 };
    expect(plainJson({ type: 'step', prompt: { toJSON: () => built } })['prompt']).toBe(built);
    const already = { type: 'step', data: { a: [1, 'x', null] } };
    expect(plainJson(already)).toBe(already);
  });
});
