import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonIds } from '../../src/codec/json-ids.js';
import type { Json } from '../../src/codec/json.js';

// Small pools, so that equal values (and near misses: key order, 1 vs "1", -0, escapes) are common.
const leaf = fc.oneof(
  fc.constantFrom<Json>(
    0,
    -0,
    1,
    1.5,
    '1',
    '',
    'a"b',
    'a\\b',
    '\n',
    '😀',
    '\ud800',
    '中文',
    true,
    false,
    null,
  ),
  fc.constantFrom<Json>('s1', 'o1', '[1]', 'null', 'true', '{"a":1}'),
);
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', '"', '~1', '__proto__', '0'), tie('value'), {
      maxKeys: 3,
    }) as fc.Arbitrary<Json>,
  ),
})).value;
const composite = json.filter(
  (v): v is Json[] | { [key: string]: Json } => typeof v === 'object' && v !== null,
);

describe('JsonIds: numbers that tell JSON values apart', () => {
  it('gives two values one number exactly when their JSON texts are equal', () => {
    fc.assert(
      fc.property(fc.array(composite, { minLength: 2, maxLength: 6 }), (values) => {
        const ids = new JsonIds();
        for (const a of values)
          for (const b of values)
            expect(ids.id(a) === ids.id(b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('knows the length of a JSON text without writing it, and its UTF-8 size near a bound', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 12 }), (value, bound) => {
        const ids = new JsonIds();
        const text = JSON.stringify(value);
        expect(ids.length(value)).toBe(text.length);
        if (typeof value === 'string' || (typeof value === 'object' && value !== null))
          expect(ids.bytesAtLeast(value, bound)).toBe(Buffer.byteLength(text) >= bound);
      }),
      { numRuns: 2000 },
    );
  });

  it('forgets a caller tree: a changed object gets the number of what it holds now', () => {
    const ids = new JsonIds();
    const input = { query: 'rice', tags: ['a'] };
    const before = ids.id(input);
    ids.forget(input);
    input.query = 'noodles';
    expect(ids.id(input)).not.toBe(before);
    expect(ids.id(input)).toBe(ids.id({ query: 'noodles', tags: ['a'] }));
  });
});
