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

/** `x − reference` in decimal, as a double; `undefined` when that double does not add back to `x` exactly. */
export function decimalDelta(x: number, reference: number): number | undefined {
  if (!Number.isFinite(x) || !Number.isFinite(reference)) return undefined;
  const [a, b, scale] = aligned(parseDecimal(x), parseDecimal(reference));
  const delta = toNumber({ digits: a - b, scale });
  return Number.isFinite(delta) && Object.is(decimalSum(reference, delta), x) ? delta : undefined;
}

/** `reference + delta` in decimal, as a double (the inverse of `decimalDelta`). */
export function decimalSum(reference: number, delta: number): number {
  const [a, b, scale] = aligned(parseDecimal(reference), parseDecimal(delta));
  return toNumber({ digits: a + b, scale });
}
