import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskPii, maskPiiText } from 'reins';
import { mayHoldPii, PII_PATTERNS } from '../src/sanitize/mask-pii.js';

/** What `maskPii` must return for a value with nothing to mask: exactly what JSON carries. */
function viaJson(value: unknown): unknown {
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? undefined : JSON.parse(json);
}

/** Deep equality where -0 and 0 differ, and key order counts. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b))
    return false;
  const keys = Reflect.ownKeys(a);
  const other = Reflect.ownKeys(b);
  return (
    keys.length === other.length &&
    keys.every((key, i) => key === other[i] && same(Reflect.get(a, key), Reflect.get(b, key)))
  );
}

const hasNothingToMask = (value: unknown): boolean => {
  try {
    const json = JSON.stringify(value) as string | undefined;
    return json !== undefined && !/@|\d{4}/.test(json);
  } catch {
    return false; // bigint, cycles: maskPii throws like JSON.stringify (tested elsewhere)
  }
};

describe('maskPii copies a value with nothing to mask exactly as JSON would carry it', () => {
  it('for any value: same shape, same key order, -0 as 0, no shared objects', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withNullPrototype: true,
          withSparseArray: true,
          withDate: true,
          withBoxedValues: true,
        }),
        (value) => {
          fc.pre(hasNothingToMask(value));
          const masked = maskPii(value);
          expect(same(masked, viaJson(value))).toBe(true);
          if (typeof value === 'object' && value !== null) expect(masked).not.toBe(value);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('the cases where a walk and JSON differ go the JSON way', () => {
    const proto = JSON.parse('{"__proto__": {"x": 1}, "y": [1, null]}') as unknown;
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const inherited = Object.create({ hidden: 1 }) as Record<string, unknown>;
    inherited.shown = 2;
    const cases: unknown[] = [
      proto,
      { a: -0, b: [-0, { c: -0 }] },
      { a: -0, b: [-0], c: Number.NaN, d: Number.POSITIVE_INFINITY },
      { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1] },
      // eslint-disable-next-line no-sparse-arrays -- a hole is one of the cases
      [1, , 3],
      { when: new Date(Date.UTC(2026, 0, 2)), nested: { toJSON: () => 'j' } },
      new Point(1, 2),
      inherited,
      new String('s'),
    ];
    for (const value of cases) expect(same(maskPii(value), viaJson(value))).toBe(true);
    expect(Object.keys(maskPii(proto) as object)).toEqual(['__proto__', 'y']);
  });

  it('a polluted Object.prototype adds nothing to the copy', () => {
    const polluted = Object.prototype as Record<string, unknown>;
    polluted.injected = 'x';
    try {
      expect(same(maskPii({ a: 1, b: { c: [2] } }), { a: 1, b: { c: [2] } })).toBe(true);
    } finally {
      delete polluted.injected;
    }
  });

  it('an inherited toJSON (not enumerable) is applied, as JSON would', () => {
    Object.defineProperty(Array.prototype, 'toJSON', { value: () => 'an array', configurable: true });
    try {
      expect(maskPii({ list: [1, 2] })).toEqual({ list: 'an array' });
    } finally {
      delete (Array.prototype as { toJSON?: unknown }).toJSON;
    }
  });
});

describe('mayHoldPii: the pre-check that lets a text skip the patterns', () => {
  // Digits, the separators the patterns allow, the characters they need, letters and CJK.
  const unit = fc.constantFrom(
    ...'0123456789',
    ...'0123456789',
    ' ',
    '-',
    '(',
    ')',
    '+',
    '@',
    '.',
    'x',
    'X',
    'a',
    'Z',
    '中',
    '_',
    '\n',
  );
  const text = fc.string({ unit, maxLength: 60 });

  it('a text it passes over matches no pattern and is returned as it is', () => {
    fc.assert(
      fc.property(text, (value) => {
        fc.pre(!mayHoldPii(value));
        for (const pattern of PII_PATTERNS) expect(new RegExp(pattern.source).test(value)).toBe(false);
        expect(maskPiiText(value)).toBe(value);
      }),
      { numRuns: 5_000 },
    );
  });

  it('a text with something to mask is never passed over', () => {
    fc.assert(
      fc.property(text, (value) => {
        const masked = maskPiiText(value);
        if (masked !== value) expect(mayHoldPii(value)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    for (const pii of [
      'a@b.cn',
      '+1 415 555 2671',
      '13812345678',
      '010-12345678',
      '(415) 555-2671',
      '4111 1111 1111 1111',
      '11010519491231002X',
    ])
      expect(mayHoldPii(`见 ${pii} 处`)).toBe(true);
  });

  it('numbers: one masked in a value makes its JSON fail the pre-check', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double({ noNaN: true, noDefaultInfinity: true })),
        (n) => {
          const masked = maskPii({ n });
          if (!same(masked, viaJson({ n }))) expect(mayHoldPii(JSON.stringify({ n }))).toBe(true);
          if (!mayHoldPii(JSON.stringify({ n }))) expect(same(masked, viaJson({ n }))).toBe(true);
        },
      ),
      { numRuns: 5_000 },
    );
    expect(maskPii({ n: 13812345678 })).toEqual({ n: '*******5678' });
  });

  it('dates, quantities and ids no longer send a text through the patterns', () => {
    for (const plain of [
      '2026-12-05',
      '1500 克',
      '保质期到 2027-01-13，还剩 40 天',
      'de1f9c6a-cc87-4286-9cb5-61d20b78ab25 鸡蛋',
    ])
      expect(mayHoldPii(plain)).toBe(false);
  });
});
