import { setKey, type Json, type JsonObject } from './json.js';

/** What only `JSON.stringify` itself can say how to write: class instances, BigInt, cycles. */
const NOT_PLAIN = Symbol('not plain');
/** Deeper than this, a tree goes through JSON rather than being walked (a cycle fails there, as it should). */
const MAX_DEPTH = 64;

/**
 * An event as `JSON.parse(JSON.stringify(event))` would give it back, without the round trip:
 * the parts that are JSON already are shared (copy on write), `undefined` fields are dropped,
 * non-finite numbers become `null` and -0 becomes 0, as JSON does, and an object's `toJSON`
 * is called with its key, as JSON does (a kept prompt is one). What JSON itself has to decide
 * (a class instance without `toJSON`, BigInt, a cycle) takes the round trip after all.
 */
export function plainJson(value: object): JsonObject {
  const plain = part(value, 0, '');
  return (
    typeof plain === 'object' && plain !== null && !Array.isArray(plain)
      ? plain
      : JSON.parse(JSON.stringify(value))
  ) as JsonObject;
}

/** A value as JSON gives it back (`undefined`: JSON drops it), sharing what already is JSON. */
function part(value: unknown, depth: number, key: string): Json | undefined | typeof NOT_PLAIN {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    if (Array.isArray(value)) return NOT_PLAIN;
    // JSON writes what `toJSON` returns, without calling that one's own `toJSON`.
    const replaced: unknown = (value as { toJSON(key: string): unknown }).toJSON(key);
    if (typeof replaced === 'object' && replaced !== null && 'toJSON' in replaced) return NOT_PLAIN;
    return part(replaced, depth, key);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value + 0 : null; // + 0: -0 is written 0
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth > MAX_DEPTH) return NOT_PLAIN;
  return Array.isArray(value) ? array(value, depth) : object(value as Record<string, unknown>, depth);
}

function array(value: readonly unknown[], depth: number): Json[] | typeof NOT_PLAIN {
  if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
  let copy: Json[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item = value[i]; // a hole reads undefined, and JSON writes both as null
    const plain = part(item, depth + 1, String(i));
    if (plain === NOT_PLAIN) return NOT_PLAIN;
    if (copy === undefined && !Object.is(plain ?? null, item)) copy = value.slice(0, i) as Json[];
    copy?.push(plain ?? null);
  }
  return copy ?? (value as Json[]);
}

function object(value: Record<string, unknown>, depth: number): JsonObject | typeof NOT_PLAIN {
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype) return NOT_PLAIN;
  const keys = Object.keys(value);
  let copy: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const field = value[key];
    const plain = part(field, depth + 1, key);
    if (plain === NOT_PLAIN) return NOT_PLAIN;
    if (copy === undefined && (plain === undefined || !Object.is(plain, field))) {
      copy = {};
      for (const earlier of keys.slice(0, i)) setKey(copy, earlier, value[earlier] as Json);
    }
    if (copy !== undefined && plain !== undefined) setKey(copy, key, plain);
  }
  return copy ?? (value as JsonObject);
}
