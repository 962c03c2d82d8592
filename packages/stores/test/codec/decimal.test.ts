import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalDelta, decimalSum } from '../../src/codec/decimal.js';

/**
 * The stored format's arithmetic, written the slow obvious way: exact decimal sums of the
 * shortest forms (`String(x)`) in BigInt, parsed back by `Number`. The codec's fast path
 * (safe-integer parts, no BigInt) must give the identical double for every input.
 */
function exactSum(a: number, b: number): number {
  const parse = (x: number): [bigint, number] => {
    const [mantissa = '', exponent = '0'] = String(x).split('e');
    const [whole = '', fraction = ''] = mantissa.split('.');
    const scale = fraction.length - Number(exponent);
    const digits = BigInt(whole + fraction);
    return scale < 0 ? [digits * 10n ** BigInt(-scale), 0] : [digits, scale];
  };
  const [x, xs] = parse(a);
  const [y, ys] = parse(b);
  const scale = Math.max(xs, ys);
  const sum = x * 10n ** BigInt(scale - xs) + y * 10n ** BigInt(scale - ys);
  const text = (sum < 0n ? -sum : sum).toString().padStart(scale + 1, '0');
  const point = text.length - scale;
  return Number(`${sum < 0n ? '-' : ''}${text.slice(0, point)}.${text.slice(point)}0`);
}

/** Times as runs write them (epoch ms with up to four decimals), small durations, and any double. */
const time = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }), fc.integer({ min: 0, max: 9999 }))
    .map(([ms, fraction]) => ms + fraction / 10_000),
  fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => n / 1000),
  fc.constantFrom(0, -0, 0.1, 0.2, 0.1 + 0.2, 9007199254740991, 9007199254740992, 1e21, 5e-324, -1.5e-7),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

describe('decimal arithmetic of times', () => {
  it('sums as the exact decimal of the shortest forms would, on every path', () => {
    fc.assert(
      fc.property(time, time, (a, b) => {
        const expected = exactSum(a, b);
        fc.pre(Number.isFinite(expected));
        expect(Object.is(decimalSum(a, b), expected)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes differences that add back exactly, short when the times are', () => {
    fc.assert(
      fc.property(time, time, (x, reference) => {
        const delta = decimalDelta(x, reference);
        if (delta !== undefined) expect(Object.is(decimalSum(reference, delta), x)).toBe(true);
        else {
          const exact = exactSum(x, -reference);
          expect(Number.isFinite(exact) && Object.is(exactSum(reference, exact), x)).toBe(false);
        }
      }),
      { numRuns: 20_000 },
    );
    expect(decimalDelta(1796137877769.47, 1796137877768)).toBe(1.47);
    expect(decimalDelta(1796189486802.8308, 1796189486790.874)).toBe(11.9568);
    expect(Object.is(decimalDelta(5, 5), 0)).toBe(true);
  });
});
