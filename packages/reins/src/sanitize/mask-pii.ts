/**
 * Masks personal data in tool observations before a model sees them: e-mail addresses,
 * 18-digit PRC resident ID numbers, bank card numbers (13–19 digits passing the Luhn check,
 * optionally grouped by spaces or dashes), Chinese 11-digit mobiles (optionally +86), phone
 * numbers written with a leading +, and landlines written with an area code (010-12345678,
 * (415) 555-2671). The last four characters stay visible so a user can still tell two
 * records apart. A Luhn-valid order number is masked too: erring towards privacy.
 */

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
// Written straight after letters (`ID110101…`, `visa-4111…`) a number is still a number: only
// a digit next to it makes it part of something longer.
const RESIDENT_ID =
  /(?<!\d)[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])/g;
const CARD = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
const CN_MOBILE = /(?<![\d+])(?:(?:\+|00)86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}(?!\d)/g;
// Not after a letter: `GMT+8 2026-12-05` is a time zone and a date, not a phone number.
const INTL_PHONE = /(?<![\dA-Za-z+])\+\d{1,3}[ -]?(?:\(?\d{1,4}\)?[ -]?){2,4}\d{2,4}(?!\d)/g;
// Landlines written with an area code: 010-12345678, (0755) 1234567, (415) 555-2671, 415-555-2671.
const LANDLINE =
  /(?<![\d-])(?:0\d{2,3}-\d{7,8}|\(0\d{2,3}\) ?\d{7,8}|\(\d{3}\) ?\d{3}-\d{4}|\d{3}-\d{3}-\d{4})(?![\d-])/g;

// A UUID (an act or run id) is never personal data, but its hex groups can look like a card
// number that passes the Luhn check (`…-a571-945023680387`): it is left as it is.
const UUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/g;

export function maskPiiText(text: string): string {
  return mayHoldPii(text) ? maskEveryPattern(text, true) : text;
}

/**
 * Every pattern over `text`, its UUIDs left as they are. `precheck`: the parts between the
 * UUIDs that `mayHoldPii` passes over are not searched (the tests compare with `false`).
 */
export function maskEveryPattern(text: string, precheck = false): string {
  let masked = '';
  let from = 0;
  for (const uuid of text.matchAll(UUID)) {
    masked += maskOutsideUuids(text.slice(from, uuid.index), precheck) + uuid[0];
    from = uuid.index + uuid[0].length;
  }
  return from === 0
    ? maskOutsideUuids(text, precheck)
    : masked + maskOutsideUuids(text.slice(from), precheck);
}

function maskOutsideUuids(text: string, precheck: boolean): string {
  // The text's own ids often made it look maskable: what is left between them may not be.
  if (precheck && !mayHoldPii(text)) return text;
  const mailed = text.replace(EMAIL, maskEmail);
  return WIDE.test(mailed) ? maskWide(mailed) : maskNumbers(mailed);
}

// Full-width digits, plus, hyphen and space (as Chinese input methods and OCR write them): the
// same number to a reader and to a model.
const WIDE = /[\uFF10-\uFF19\uFF0B\uFF0D\u3000]/;
const WIDE_ALL = /[\uFF10-\uFF19\uFF0B\uFF0D\u3000]/g;

/**
 * The number patterns over a copy with full-width characters folded to ASCII, one character
 * for one (the number patterns keep a text's length): what they masked is masked in the
 * original, every other character is kept as written.
 */
function maskWide(text: string): string {
  const folded = text.replace(WIDE_ALL, (c) =>
    c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0),
  );
  const masked = maskNumbers(folded);
  let out = '';
  for (let i = 0; i < text.length; i++) out += masked[i] === folded[i] ? text[i] : masked[i];
  return out;
}

/** The number patterns (each keeps the text's length: digits become `*`). */
function maskNumbers(text: string): string {
  return text
    .replace(RESIDENT_ID, (id) => keepLast(id, 4))
    .replace(CARD, (digits) => (luhnValid(digits) ? keepLast(digits, 4) : digits))
    .replace(CN_MOBILE, (phone) => keepLast(phone, 4))
    .replace(INTL_PHONE, (phone) => keepLast(phone, 4))
    .replace(LANDLINE, (phone) => keepLast(phone, 4));
}

const MAX_DEPTH = 64;
export const TOO_DEEP = '[redacted: nested too deeply]';

/**
 * The value as JSON would carry it (`toJSON` applied, so a `Date` becomes its string and
 * nothing can restore an unmasked value later), with every string — keys included — masked,
 * integers of 11 or more digits masked like digit strings (they become strings when masked),
 * and — when the text holds anything maskable — whatever is nested deeper than 64 levels
 * replaced by `TOO_DEEP` (it is not walked). Throws on values JSON
 * cannot carry (BigInt, cycles): callers turn that into an error observation.
 */
export function maskPii<T>(value: T): T {
  if (value === undefined) return value;
  // Plain data (the usual tool result) is copied by one walk, the copy is what gets
  // stringified: one read of every property, and no JSON.parse (see bench/). Anything else
  // goes the JSON way.
  const plain = plainCopy(value, 0);
  const json = JSON.stringify(plain === NOT_PLAIN ? value : plain) as string | undefined;
  if (json === undefined) return undefined as T;
  const copy: unknown = plain === NOT_PLAIN ? JSON.parse(json) : plain;
  // Fast path: nothing anywhere in the text that a pattern could match.
  if (!mayHoldPii(json)) {
    lastCopy = copy;
    lastJson = json;
    return copy as T;
  }
  return maskInPlace(copy, 0) as T;
}

const NOT_PLAIN = Symbol('not plain');

/**
 * A copy of `value` equal to `JSON.parse(JSON.stringify(value))`, made without the text —
 * or `NOT_PLAIN` for anything where the two might differ: a `toJSON`, a non-finite number,
 * an `undefined` / function / symbol / bigint value, a class instance, an inherited or
 * `__proto__` key, more than 64 levels (or a cycle).
 */
function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_PLAIN; // -0 → 0, as JSON
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH || (value as { toJSON?: unknown }).toJSON !== undefined) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy[i] = item;
    }
    return copy;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (key === '__proto__' || !Object.hasOwn(value, key)) return NOT_PLAIN;
    const item = plainCopy((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = item;
  }
  return copy;
}

/**
 * Whether `text` may hold anything masked here: an `@` (an e-mail), a `+` (an international
 * phone), or ten digits in one stretch of digits, spaces, dashes and brackets — every other
 * pattern needs that many (a landline 10, a mobile 11, a card 13, an ID 17), and so does an
 * integer `maskNumber` masks (11 digits, or an exponent's `+`). None of those characters is
 * escaped by JSON, so a JSON text it passes over holds no string or number to mask. A date or
 * a quantity (`2026-12-05`, `1500`) no longer sends a text through the six patterns.
 */
export function mayHoldPii(text: string): boolean {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Literal codes (module constants cost a load and a check per character here).
    if ((c >= 48 && c <= 57) || (c >= 0xff10 && c <= 0xff19)) {
      if (++digits >= 10) return true; // '0'…'9', full-width too
    } else if (c === 64 || c === 43 || c === 0xff0b) {
      return true; // '@', '+', '＋'
    } else if (c !== 32 && c !== 45 && c !== 40 && c !== 41 && c !== 0xff0d && c !== 0x3000) {
      digits = 0; // not ' ', '-', '(', ')', '－', the ideographic space
    }
  }
  return false;
}

// The last fast-path copy and its JSON: the loop describes an observation right after
// masking it, so one remembered pair saves a second stringify (a WeakMap costs more).
let lastCopy: unknown;
let lastJson = '';

/** `JSON.stringify(value)`, reusing the text `maskPii` just made for it when it can. */
export function toJson(value: unknown): string | undefined {
  if (value === lastCopy && typeof value === 'object' && value !== null) return lastJson;
  return JSON.stringify(value) as string | undefined;
}

/**
 * Masks `value` — a copy `maskPii` made, JSON's data only — where it stands: only what changes
 * is written, and an object is rebuilt only when one of its keys is masked (a walk that
 * rebuilt every object cost ~5× the JSON text of a kitchen list).
 */
function maskInPlace(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskPiiText(value);
  if (typeof value === 'number') return maskNumber(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const masked = maskInPlace(item, depth + 1);
      if (masked !== item) value[i] = masked;
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let keyMasked = false;
  for (const key of keys) {
    const item = record[key];
    const masked = maskInPlace(item, depth + 1);
    if (masked !== item) record[key] = masked;
    if (!keyMasked && maskPiiText(key) !== key) keyMasked = true;
  }
  if (!keyMasked) return record;
  // Rare: a key holds personal data. Rebuilt in the same order (two keys masked alike: the
  // later value), each key defined as an own property (an own `__proto__` key stays one).
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    Object.defineProperty(out, maskPiiText(key), {
      value: record[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function maskNumber(value: number): number | string {
  if (!Number.isInteger(value) || Math.abs(value) < 1e10) return value;
  const text = String(value);
  const masked = maskPiiText(text);
  return masked === text ? value : masked;
}

function maskEmail(email: string): string {
  const at = email.indexOf('@');
  return `${email[0] ?? ''}***${email.slice(at)}`;
}

function keepLast(text: string, visible: number): string {
  let seen = 0;
  const chars = [...text];
  for (let i = chars.length - 1; i >= 0; i--) {
    if (!/[0-9Xx]/.test(chars[i] ?? '')) continue;
    if (seen++ >= visible) chars[i] = '*';
  }
  return chars.join('');
}

function luhnValid(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
