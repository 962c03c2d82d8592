import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskPii, maskPiiText } from 'reins';
import { maskEveryPattern, mayHoldPii } from '../src/sanitize/mask-pii.js';

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
  const unit = fc.constantFrom(...'0123456789', ' ', '-', '(', ')', '+', '@', '.', 'x', 'X', 'a', '中', '\n');
  // Texts near what the patterns mask: a sample edited a little (a character dropped, added or
  // changed), in random surroundings; and random texts of digits and separators.
  const samples = [
    '010-12345678',
    '(0755) 1234567',
    '(415) 555-2671',
    '415-555-2671',
    '13812345678',
    '+86 138 1234 5678',
    '0086 13812345678',
    '4111 1111 1111 1111',
    '6222021234567890128',
    '11010519491231002X',
    '+1 415 555 2671',
    '+33 6 12 34 56 78',
    'zhang.san@example.com',
  ];
  const edited = fc
    .tuple(fc.constantFrom(...samples), fc.array(fc.tuple(fc.nat(), fc.nat(2), unit), { maxLength: 3 }))
    .map(([sample, edits]) => {
      let text = sample;
      for (const [at, kind, c] of edits) {
        const i = at % (text.length + 1);
        text =
          kind === 0
            ? text.slice(0, i) + text.slice(i + 1)
            : kind === 1
              ? text.slice(0, i) + c + text.slice(i)
              : text.slice(0, i) + c + text.slice(i + 1);
      }
      return text;
    });
  const noise = fc.string({ unit, maxLength: 12 });
  const text = fc.oneof(
    fc.string({ unit, maxLength: 60 }),
    fc.tuple(noise, edited, noise).map((parts) => parts.join('')),
  );

  it('masks exactly what every pattern over the whole text masks', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(maskPiiText(value)).toBe(maskEveryPattern(value));
      }),
      { numRuns: 10_000 },
    );
  });

  it('numbers: an integer is masked as its digits would be, whatever the pre-check says of its JSON', () => {
    const integer = fc.oneof(
      fc.integer(),
      fc.double({ min: -1e22, max: 1e22, noNaN: true }).map(Math.trunc),
      fc.constantFrom(13812345678, -13812345678, 4111111111111111, 1e21, 1e10, 9999999999),
    );
    fc.assert(
      fc.property(integer, (n) => {
        const digits = String(n);
        const masked = Math.abs(n) >= 1e10 ? maskEveryPattern(digits) : digits;
        const expected = masked === digits ? viaJson({ n }) : { n: masked };
        expect(same(maskPii({ n }), expected)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('what it flags and what it passes over', () => {
    for (const pii of samples) expect(mayHoldPii(`见 ${pii} 处`)).toBe(true);
    for (const plain of [
      '2026-12-05',
      '1500 克',
      '保质期到 2027-01-13，还剩 40 天',
      'de1f9c6a-cc87-4286-9cb5-61d20b78ab25 鸡蛋',
    ])
      expect(mayHoldPii(plain)).toBe(false);
  });
});
