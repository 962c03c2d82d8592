/**
 * A hash and an equality of values as JSON sees them, with object keys in any order: the
 * repeated-action guard's test of "the same input", made without writing the value out as
 * text. Two values whose `canonicalJson` is the same get the same `jsonHash` and are
 * `sameJson`: a number is hashed by its bits (-0 as 0, a non-finite one as `null`), an
 * object's properties are combined in an order-free way, a property JSON leaves out
 * (`undefined`, a function, a symbol) is left out, an array item JSON writes as `null` is
 * hashed as `null`, and anything that is not plain data (a `toJSON`, a class instance) is
 * taken in its JSON form. Like `JSON.stringify`, a BigInt and a cycle throw. Deeper than 64
 * levels (inputs parsed from text are capped at 32; a native call's arguments object is not)
 * both go by `canonicalJson`'s text: exact, only slower.
 */
import { canonicalJson } from './canonical-json.js';

const SEED = 0x811c9dc5;
const PRIME = 0x01000193;
// Tags keep values of different kinds apart ("1" and 1, [] and {}).
const TAG_NULL = 0x2f1a3b4c;
const TAG_TRUE = 0x5e6d7c8b;
const TAG_FALSE = 0x1b2c3d4e;
const TAG_STRING = 0x6a09e667;
const TAG_NUMBER = 0x3c6ef372;
const TAG_ARRAY = 0x510e527f;
const TAG_OBJECT = 0x1f83d9ab;
const TAG_UNDEFINED = 0x5be0cd19;
/** Deeper than this a value is hashed (and compared) by its canonical JSON text. */
const MAX_DEPTH = 64;
const TAG_DEEP = 0x428a2f98;
/**
 * The objects and arrays `valueHash` is inside of, by depth, from `CYCLE_FROM` down: a value
 * met again among them is a cycle (`JSON.stringify` throws on one; walking it would not end).
 * A cycle always leads that deep, and the walk goes depth first, so its first way down finds
 * it; a shallow input (the usual one) pays nothing. Module state, not an array per call:
 * nothing runs caller code during the walk except a `toJSON`, whose stretch saves and
 * restores it. Emptied on the way out (no input is kept alive by it).
 */
const CYCLE_FROM = 8;
const within: unknown[] = [];

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);

/** A 30-bit hash (always a small integer) of `value` as JSON carries it, key order ignored. */
export function jsonHash(value: unknown): number {
  return finish(valueHash(value, 0)) & 0x3fffffff;
}

/** FNV-1a over the text's UTF-16 code units (32 bits, signed). */
export function stringHash(text: string, seed = SEED): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), PRIME);
  return hash;
}

/** murmur3's finalizer: every input bit reaches every output bit (an order-free sum needs it). */
function finish(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function valueHash(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return stringHash(value, TAG_STRING);
    case 'number': {
      if (!Number.isFinite(value)) return TAG_NULL;
      bits[0] = value === 0 ? 0 : value; // -0 is written as 0
      return Math.imul(Math.imul(TAG_NUMBER ^ (words[0] as number), PRIME) ^ (words[1] as number), PRIME);
    }
    case 'boolean':
      return value ? TAG_TRUE : TAG_FALSE;
    case 'object':
      break;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return TAG_UNDEFINED; // undefined, a function, a symbol: JSON leaves them out
  }
  if (value === null) return TAG_NULL;
  if (depth >= MAX_DEPTH) return stringHash(canonicalJson(value), TAG_DEEP);
  const watched = depth >= CYCLE_FROM;
  if (watched) {
    for (let i = CYCLE_FROM; i < depth; i++)
      if (within[i] === value) {
        within.length = 0; // the walk ends here: what it was inside of is not kept
        throw new TypeError('Converting circular structure to JSON');
      }
  }
  if (!Array.isArray(value) && !isPlain(value)) {
    const saved = within.slice(); // a toJSON may hash another value meanwhile
    const json = asJson(value);
    for (let i = 0; i < saved.length; i++) within[i] = saved[i];
    return valueHash(json, depth);
  }
  if (watched) within[depth] = value;
  let hash: number;
  if (Array.isArray(value)) {
    hash = TAG_ARRAY;
    for (let i = 0; i < value.length; i++) {
      const item = valueHash(value[i], depth + 1);
      hash = Math.imul(hash ^ (item === TAG_UNDEFINED ? TAG_NULL : item), PRIME);
    }
  } else {
    let sum = 0;
    let count = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = valueHash((value as Record<string, unknown>)[key], depth + 1);
      if (item === TAG_UNDEFINED) continue;
      sum = (sum + finish(stringHash(key) ^ item)) | 0;
      count++;
    }
    hash = Math.imul(TAG_OBJECT ^ sum, PRIME) ^ count;
  }
  if (watched) within[depth] = undefined;
  return hash;
}

/**
 * Whether `a` and `b` are the same JSON, object keys in any order. For values `jsonHash`
 * took (it refuses a cycle, which this would follow to its depth cap).
 */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  const ta = kindOf(a);
  const tb = kindOf(b);
  if (ta === 'other') return sameJson(asJson(a), b, depth);
  if (tb === 'other') return sameJson(a, asJson(b), depth);
  if (ta !== tb) return false;
  switch (ta) {
    case 'null':
    case 'absent':
      return true;
    case 'string':
    case 'boolean':
      return false; // not ===
    case 'number':
      return false; // not === (and both finite: non-finite ones are 'null')
    case 'array': {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      if (depth >= MAX_DEPTH) return canonicalJson(a) === canonicalJson(b);
      for (let i = 0; i < x.length; i++) {
        const item = x[i];
        const other = y[i];
        if (!sameJson(orNull(item), orNull(other), depth + 1)) return false;
      }
      return true;
    }
    case 'object': {
      if (depth >= MAX_DEPTH) return canonicalJson(a) === canonicalJson(b);
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      let count = 0;
      for (const key in x) {
        if (!Object.hasOwn(x, key) || kindOf(x[key]) === 'absent') continue;
        if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key], depth + 1)) return false;
        count++;
      }
      for (const key in y) if (Object.hasOwn(y, key) && kindOf(y[key]) !== 'absent') count--;
      return count === 0;
    }
  }
}

type Kind = 'null' | 'absent' | 'string' | 'boolean' | 'number' | 'array' | 'object' | 'other';

function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isFinite(value) ? 'number' : 'null';
    case 'boolean':
      return 'boolean';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return 'array';
      return isPlain(value) ? 'object' : 'other';
    default:
      return 'absent';
  }
}

/** An array item JSON leaves out is written as `null`. */
function orNull(item: unknown): unknown {
  return kindOf(item) === 'absent' ? null : item;
}

function isPlain(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A value that is not plain data, as JSON has it (a `Date` becomes its string). */
function asJson(value: unknown): unknown {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}
