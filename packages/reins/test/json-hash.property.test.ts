import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/util/canonical-json.js';
import { jsonHash, sameJson } from '../src/util/json-hash.js';

/** A copy of `value` with every object's keys in another order (reversed, then rotated by `turn`). */
function reordered(value: unknown, turn: number): unknown {
  if (Array.isArray(value)) return value.map((item) => reordered(item, turn + 1));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).reverse();
  const by = keys.length === 0 ? 0 : turn % keys.length;
  const copy: Record<string, unknown> = {};
  for (const key of [...keys.slice(by), ...keys.slice(0, by)]) {
    Object.defineProperty(copy, key, {
      value: reordered((value as Record<string, unknown>)[key], turn + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

// Small alphabets, so that equal values (and near misses) come up often.
const smallJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1, 2, 1.5, 'a', 'b', '', '1'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

describe('jsonHash and sameJson (the repeated-action guard’s equality)', () => {
  it('agree with canonicalJson on JSON values: the same JSON in any key order is the same, anything else is not', () => {
    fc.assert(
      fc.property(smallJson, smallJson, fc.nat(5), (a, b, turn) => {
        const equal = canonicalJson(a) === canonicalJson(b);
        expect(sameJson(a, b)).toBe(equal);
        expect(sameJson(b, a)).toBe(equal);
        if (equal) expect(jsonHash(a)).toBe(jsonHash(b));
        const shuffled = reordered(a, turn);
        expect(sameJson(a, shuffled)).toBe(true);
        expect(jsonHash(shuffled)).toBe(jsonHash(a));
      }),
      { numRuns: 3000 },
    );
  });

  it('canonicalJson keeps an own __proto__ key when it sorts keys (it was assigned, setting the prototype)', () => {
    const a: unknown = JSON.parse('{"b":1,"__proto__":{"x":1}}');
    expect(canonicalJson(a)).toBe('{"__proto__":{"x":1},"b":1}');
    expect(canonicalJson(a)).not.toBe(canonicalJson({ b: 1 }));
    expect(sameJson(a, { b: 1 })).toBe(false);
  });

  it('tells apart any JSON values fast-check makes, unless canonicalJson finds them equal', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const equal = canonicalJson(a) === canonicalJson(b);
        expect(sameJson(a, b)).toBe(equal);
        if (equal) expect(jsonHash(a)).toBe(jsonHash(b));
      }),
      { numRuns: 1000 },
    );
  });

  it('takes values as JSON writes them: -0, non-finite numbers, left-out properties, array holes, toJSON', () => {
    const pairs: [unknown, unknown][] = [
      [{ n: -0 }, { n: 0 }],
      [
        [Number.NaN, Number.POSITIVE_INFINITY],
        [null, null],
      ],
      [{ a: 1, skip: undefined, f: () => 1 }, { a: 1 }],
      [
        [undefined, () => 1],
        [null, null],
      ],
      [{ at: new Date(0) }, { at: '1970-01-01T00:00:00.000Z' }],
      [Object.assign(Object.create(null) as object, { a: 1 }), { a: 1 }],
    ];
    for (const [a, b] of pairs) {
      expect(canonicalJson(a)).toBe(canonicalJson(b));
      expect(sameJson(a, b)).toBe(true);
      expect(jsonHash(a)).toBe(jsonHash(b));
    }
    const apart: [unknown, unknown][] = [
      [1, '1'],
      [[], {}],
      [{ a: null }, {}],
      [
        [1, 2],
        [2, 1],
      ],
      [{ a: { b: 1 } }, { a: { b: 1, c: 1 } }],
      [true, 1],
    ];
    for (const [a, b] of apart) {
      expect(sameJson(a, b)).toBe(false);
      expect(jsonHash(a)).not.toBe(jsonHash(b));
    }
  });

  it('is a small integer, spreads nearby inputs, and refuses a BigInt as JSON.stringify does', () => {
    const hashes = new Set<number>();
    for (let a = 0; a < 100; a++) for (let b = 0; b < 100; b++) hashes.add(jsonHash({ a, b }));
    expect(hashes.size).toBe(10_000); // {a,b} and {b,a}-like sums must not fold together
    for (const hash of hashes) expect(hash >= 0 && hash < 2 ** 30 && Number.isInteger(hash)).toBe(true);
    expect(() => jsonHash({ n: 1n })).toThrow(TypeError);
    // Deeper than the cap: bounded, and still equal for equal values.
    const nest = (levels: number, leaf: unknown): unknown => {
      let deep = leaf;
      for (let i = 0; i < levels; i++) deep = [deep];
      return deep;
    };
    expect(jsonHash(nest(1_000, 1))).toBe(jsonHash(nest(1_000, 1)));
    expect(sameJson(nest(1_000, 1), nest(1_000, 1))).toBe(true);
    expect(jsonHash(nest(10, 1))).not.toBe(jsonHash(nest(10, 2)));
  });

  it('stays exact past 64 levels (native call arguments are not depth-capped) and refuses a cycle', () => {
    const nest = (levels: number, leaf: unknown): unknown => {
      let deep = leaf;
      for (let i = 0; i < levels; i++) deep = { x: deep, y: [i] };
      return deep;
    };
    expect(sameJson(nest(70, 'a'), nest(70, 'b'))).toBe(false);
    expect(jsonHash(nest(70, 'a'))).not.toBe(jsonHash(nest(70, 'b')));
    expect(sameJson(nest(70, 'a'), nest(70, 'a'))).toBe(true);
    expect(jsonHash(nest(70, 'a'))).toBe(jsonHash(nest(70, 'a')));
    // Twice self-referencing: walking it to a depth cap would take 2^64 steps.
    const loop: Record<string, unknown> = {};
    loop.a = loop;
    loop.b = [loop];
    expect(() => jsonHash(loop)).toThrow(TypeError);
    expect(() => jsonHash({ ok: [1, { deeper: loop }] })).toThrow(TypeError);
    // The same object twice, side by side, is not a cycle.
    const shared = { n: 1 };
    expect(jsonHash({ a: shared, b: shared })).toBe(jsonHash({ b: { n: 1 }, a: { n: 1 } }));
  });
});
