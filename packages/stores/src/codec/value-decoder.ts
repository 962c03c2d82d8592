import { isObject, setKey, type Json, type JsonObject } from './json.js';
import type { RefTable } from './ref-table.js';
import { parseJsonText } from './json-text.js';
import { TAG } from './tags.js';

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/**
 * A value back from its stored form (`tags.ts`) against the value it replaced (`base`, absent
 * for a new one). Every string, array and object it produces is registered in `table` right
 * after it is produced — children before their parent — except a root (`registerSelf: false`)
 * and values taken whole from the base or the table. `ValueEncoder` mirrors exactly this order.
 */
export function decodeValue(
  stored: Json,
  base: Json | undefined,
  table: RefTable,
  registerSelf = true,
): Json {
  let value: Json;
  if (typeof stored === 'number' && Number.isInteger(stored) && stored < 0) return table.get(-stored - 1);
  if (typeof stored !== 'object' || stored === null) value = stored;
  else if (!Array.isArray(stored)) value = decodeObject(stored, isObject(base) ? base : {}, table);
  else {
    const [tag, ...args] = stored;
    switch (tag) {
      case TAG.array:
        value = args.map((item) => decodeValue(item, undefined, table));
        break;
      case TAG.ref:
        return table.get(args[0]);
      case TAG.like:
        return decodeValue(args[1] ?? null, table.get(args[0]), table, registerSelf);
      case TAG.negative:
        if (typeof args[0] !== 'number' || args[0] >= 0) throw malformed('a negative number must be one');
        return args[0];
      case TAG.splice: {
        const [keep, keepEnd, ...items] = args;
        if (!Array.isArray(base) || typeof keep !== 'number' || typeof keepEnd !== 'number')
          throw malformed('a splice needs a previous array');
        value = [
          ...base.slice(0, keep),
          ...items.map((item) => decodeValue(item, undefined, table)),
          ...base.slice(base.length - keepEnd),
        ];
        break;
      }
      case TAG.zip:
        if (!Array.isArray(base) || base.length !== args.length)
          throw malformed('a zip needs a previous array of its length');
        value = args.map((item, i) => (isSame(item) ? (base[i] as Json) : decodeValue(item, base[i], table)));
        break;
      case TAG.jsonText: {
        const parsed = typeof base === 'string' ? parseJsonText(base) : undefined;
        value = JSON.stringify(decodeValue(args[0] ?? null, parsed, table));
        break;
      }
      case TAG.table: {
        const [keys, ...rows] = args;
        if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string'))
          throw malformed('a table needs its keys');
        const names = keys.map((k) => table.readKey(k as string));
        value = rows.map((row) => {
          if (!Array.isArray(row) || row.length !== keys.length)
            throw malformed('a table row needs a value per key');
          const item: JsonObject = {};
          names.forEach((key, i) => setKey(item, key, decodeValue(row[i] as Json, undefined, table)));
          table.register(item);
          return item;
        });
        break;
      }
      case TAG.whole:
        if (!isObject(args[0])) throw malformed('a whole object must be an object');
        value = decodeObject(args[0], {}, table);
        break;
      default:
        throw malformed(`unknown tag ${JSON.stringify(tag)}`);
    }
  }
  if (registerSelf) table.register(value);
  return value;
}

/** The base's keys in their order (changed or dropped as the diff says), then the new keys. */
function decodeObject(diff: JsonObject, base: JsonObject, table: RefTable): JsonObject {
  const changed = new Map<string, Json | typeof REMOVED>();
  for (const storedKey of Object.keys(diff)) {
    const key = table.readKey(storedKey);
    const stored = diff[storedKey] as Json;
    changed.set(
      key,
      isRemoved(stored) ? REMOVED : decodeValue(stored, hasOwn(base, key) ? base[key] : undefined, table),
    );
  }
  const value: JsonObject = {};
  for (const key of Object.keys(base)) {
    const next = changed.has(key) ? changed.get(key) : base[key];
    if (next !== REMOVED && next !== undefined) setKey(value, key, next);
  }
  for (const [key, next] of changed) if (!hasOwn(base, key) && next !== REMOVED) setKey(value, key, next);
  return value;
}

const REMOVED = Symbol('removed');
const isRemoved = (v: Json): boolean => Array.isArray(v) && v.length === 1 && v[0] === TAG.removed;
const isSame = (v: Json): boolean => Array.isArray(v) && v.length === 1 && v[0] === TAG.same;
const malformed = (why: string) => new RangeError(`stored event is malformed: ${why}`);
