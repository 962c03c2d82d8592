/**
 * Exact decimal arithmetic on the shortest decimal form of doubles (what `String(x)` prints).
 * Time fields are stored as decimal differences (`1796137877769.47 − 1796137877768` is
 * `1.47`, not the binary `1.4699707…`), and adding the decimal difference back to the
 * reference's decimal form gives the original decimal, which parses to the identical double.
 */
interface Decimal {
  /** The value is `digits / 10^scale`. */
  readonly digits: bigint;
  readonly scale: number;
}

const SHORTEST = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

function parseDecimal(x: number): Decimal {
  const match = SHORTEST.exec(String(x));
  if (match === null) throw new RangeError(`not a finite number: ${x}`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = BigInt(whole + fraction);
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: sign === '-' ? -digits : digits, scale };
}

function aligned(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.digits * 10n ** BigInt(scale - a.scale), b.digits * 10n ** BigInt(scale - b.scale), scale];
}

function toNumber({ digits, scale }: Decimal): number {
  const negative = digits < 0n;
  const text = (negative ? -digits : digits).toString().padStart(scale + 1, '0');
  const point = text.length - scale;
  const fraction = text.slice(point).replace(/0+$/, '');
  return Number(`${negative ? '-' : ''}${text.slice(0, point)}${fraction === '' ? '' : `.${fraction}`}`);
}

/**
 * A double's shortest decimal form as `±(whole + fraction / 10^scale)` with both parts safe
 * integers (no exponent, at most 15 fraction digits); `undefined` otherwise.
 */
interface SplitDecimal {
  readonly whole: number;
  readonly fraction: number;
  readonly scale: number;
}

/** 10^0 … 10^15, written out: each is an exact double, and a fraction part has at most 15 digits. */
const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * The last doubles split: an event's `at` is the reference of its other times and of the next
 * event's, and the check decodes the same times again, so each is printed several times.
 */
const recentSplits = new Map<number, SplitDecimal | null>();
const RECENT_MAX = 64;

function splitDecimal(x: number): SplitDecimal | undefined {
  const known = recentSplits.get(x);
  if (known !== undefined) return known ?? undefined;
  const split = printSplit(x);
  if (recentSplits.size >= RECENT_MAX) recentSplits.clear();
  recentSplits.set(x, split ?? null); // 0 and -0 share a key: both print as "0"
  return split;
}

function printSplit(x: number): SplitDecimal | undefined {
  const text = String(x);
  if (text.includes('e')) return undefined;
  const point = text.indexOf('.');
  const negative = text.charCodeAt(0) === 45; // '-'
  const whole = Number(point === -1 ? text : text.slice(0, point));
  const scale = point === -1 ? 0 : text.length - point - 1;
  if (!Number.isSafeInteger(whole) || scale > 15) return undefined;
  const fraction = scale === 0 ? 0 : Number(text.slice(point + 1));
  return { whole: whole + 0, fraction: negative ? -fraction : fraction, scale }; // + 0: "-0.5" has whole -0
}

/**
 * `a + sign × b` in decimal with safe-integer arithmetic on the whole and fraction parts (no
 * BigInt), printed as its exact decimal and parsed: the double `toNumber` gives for the same
 * decimal. `undefined` when a part does not fit (then the BigInt path answers).
 */
function fastSum(x: SplitDecimal, y: SplitDecimal, sign: 1 | -1): number | undefined {
  const scale = Math.max(x.scale, y.scale);
  const unit = POWERS_OF_TEN[scale] ?? NaN;
  let whole = x.whole + sign * y.whole;
  let fraction =
    x.fraction * (POWERS_OF_TEN[scale - x.scale] ?? NaN) +
    sign * y.fraction * (POWERS_OF_TEN[scale - y.scale] ?? NaN);
  if (!Number.isSafeInteger(whole)) return undefined;
  // Carry, then give both parts the sign of the whole: |fraction| < unit, and never opposite signs.
  const carry = fraction >= unit ? 1 : fraction <= -unit ? -1 : 0;
  whole += carry;
  fraction -= carry * unit;
  const borrow = whole > 0 && fraction < 0 ? 1 : whole < 0 && fraction > 0 ? -1 : 0;
  whole -= borrow;
  fraction += borrow * unit;
  // Both parts share a sign now. When all the digits fit a safe integer, one division of exact
  // doubles is correctly rounded (Clinger's fast path), as parsing the decimal would be.
  const digitsValue = whole * unit + fraction;
  if (Number.isSafeInteger(digitsValue)) return digitsValue / unit;
  const negative = whole < 0 || fraction < 0;
  const digits = fraction === 0 ? '' : `.${String(Math.abs(fraction)).padStart(scale, '0')}`;
  return Number(`${negative ? '-' : ''}${Math.abs(whole)}${digits}`);
}

/** `a + sign × b` in decimal with BigInt: any finite doubles. */
function exactSum(a: number, b: number, sign: 1 | -1): number {
  const [x, y, scale] = aligned(parseDecimal(a), parseDecimal(b));
  return toNumber({ digits: sign === 1 ? x + y : x - y, scale });
}

/** `a + sign × b` in decimal: the fast path when the parts fit, else BigInt. */
function sum(a: number, b: number, sign: 1 | -1): number {
  const x = splitDecimal(a);
  const y = splitDecimal(b);
  return (x !== undefined && y !== undefined ? fastSum(x, y, sign) : undefined) ?? exactSum(a, b, sign);
}

/** `x − reference` in decimal, as a double; `undefined` when that double does not add back to `x` exactly. */
export function decimalDelta(x: number, reference: number): number | undefined {
  if (!Number.isFinite(x) || !Number.isFinite(reference)) return undefined;
  const a = splitDecimal(x);
  const b = splitDecimal(reference);
  const fast = a !== undefined && b !== undefined ? fastSum(a, b, -1) : undefined;
  // Under 10^(15 − scale), the exact difference has at most 15 significant digits, so it is
  // what the delta prints as, and adding it back gives x's shortest form: x (but -0 prints as 0).
  const room = POWERS_OF_TEN[15 - Math.max(a?.scale ?? 15, b?.scale ?? 15)] ?? 0;
  if (fast !== undefined && Math.abs(fast) < room && !Object.is(x, -0)) return fast;
  const delta = fast ?? exactSum(x, reference, -1);
  return Number.isFinite(delta) && Object.is(decimalSum(reference, delta), x) ? delta : undefined;
}

/** `reference + delta` in decimal, as a double (the inverse of `decimalDelta`). */
export function decimalSum(reference: number, delta: number): number {
  return sum(reference, delta, 1);
}
