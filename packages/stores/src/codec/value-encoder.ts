import { Buffer } from 'node:buffer';
import type { JsonIds } from './json-ids.js';
import { isObject, printsNull, setKey, type Json, type JsonObject } from './json.js';
import { MIN_LIKE_CHARS, type RefTable } from './ref-table.js';
import { parseJsonText } from './json-text.js';
import { TAG } from './tags.js';

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/**
 * The stored form of a value against the value it replaces (`tags.ts`): a reference when the
 * run stored the same value before, else the cheapest of the forms that apply (an object as
 * its changed keys or whole; an array item by item, as a splice of the previous one, or
 * whole). It registers in `table` exactly what `decodeValue` will register, in the same
 * order, so references on both sides mean the same value.
 */
export class ValueEncoder {
  readonly #sizes = new WeakMap<object, number>();

  constructor(
    private readonly table: RefTable,
    private readonly json: JsonIds,
  ) {}

  /** Whether two values are the same JSON (key order included: the decoder rebuilds it). */
  same(a: Json, b: Json | undefined): boolean {
    if (a === b) return true;
    if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null)
      return this.json.id(a) === this.json.id(b);
    // Unequal primitives (or one and an object) differ in JSON, but for the ones JSON prints as `null`.
    return printsNull(a) && printsNull(b);
  }

  /** `value` replacing `base` (absent: a new value); the caller has left out a value that did not change. */
  encode(value: Json, base: Json | undefined, registerSelf = true): Json {
    // A root (`registerSelf: false`, an event) is never registered, so not worth looking up either.
    if (registerSelf && (typeof value === 'string' || (typeof value === 'object' && value !== null))) {
      const index = this.table.lookup(value);
      if (index !== undefined && this.json.bytesAtLeast(value, String(-index - 1).length + 1))
        return -index - 1;
    }
    if (typeof value === 'number' && Number.isInteger(value) && value < 0) return [TAG.negative, value];
    let stored: Json = value;
    if (Array.isArray(value)) stored = this.#array(value, base);
    else if (isObject(value)) stored = this.#object(value, base, registerSelf);
    else if (typeof value === 'string') stored = this.#string(value, base);
    if (registerSelf) this.table.register(value);
    return stored;
  }

  #string(value: string, base: Json | undefined): Json {
    const parsed = parseJsonText(value);
    if (parsed === undefined || JSON.stringify(parsed) !== value) return value;
    const parsedBase = typeof base === 'string' ? parseJsonText(base) : undefined;
    return this.#cheapest([() => value, () => [TAG.jsonText, this.encode(parsed, parsedBase)]]);
  }

  #array(value: Json[], base: Json | undefined): Json {
    const keys = tableKeys(value);
    const whole = (): Json =>
      keys === undefined
        ? [TAG.array, ...value.map((item) => this.encode(item, undefined))]
        : [
            TAG.table,
            keys.map((key) => this.table.writeKey(key)),
            ...value.map((item) => {
              const row = Object.values(item as JsonObject).map((cell) => this.encode(cell, undefined));
              this.table.register(item);
              return row;
            }),
          ];
    if (!Array.isArray(base)) return whole();
    let keep = 0;
    while (keep < value.length && keep < base.length && this.same(value[keep] as Json, base[keep])) keep++;
    let keepEnd = 0;
    const room = Math.min(value.length, base.length) - keep;
    while (
      keepEnd < room &&
      this.same(value[value.length - 1 - keepEnd] as Json, base[base.length - 1 - keepEnd])
    )
      keepEnd++;
    const splice = (): Json => [
      TAG.splice,
      keep,
      keepEnd,
      ...value.slice(keep, value.length - keepEnd).map((item) => this.encode(item, undefined)),
    ];
    const zip = (): Json => [
      TAG.zip,
      ...value.map((item, i) => (this.same(item, base[i]) ? [TAG.same] : this.encode(item, base[i]))),
    ];
    // Weighed only where the choice is open; elsewhere the form that fits is taken (weighing
    // every level would encode a subtree once per alternative of each of its ancestors).
    if (base.length === value.length) return this.#cheapest([splice, zip]);
    return keep + keepEnd > 0 ? splice() : whole();
  }

  #object(value: JsonObject, base: Json | undefined, registerSelf: boolean): Json {
    const from = isObject(base) ? base : {};
    const keys = Object.keys(value);
    if (!keepsOrder(keys, value, from)) return [TAG.whole, this.#diff(value, {})];
    if (base === undefined && this.json.length(value) >= MIN_LIKE_CHARS) {
      // A new object shaped like one registered before, sharing at least half its values:
      // stored as that one, changed.
      const like = this.table.like(value);
      const likeBase = like === undefined ? undefined : this.table.get(like);
      if (like !== undefined && isObject(likeBase)) {
        const shared = keys.filter((k) => this.same(value[k] as Json, likeBase[k])).length;
        if (shared * 2 >= keys.length) return [TAG.like, like, this.encode(value, likeBase, registerSelf)];
      }
    }
    return this.#diff(value, from);
  }

  #diff(value: JsonObject, from: JsonObject): JsonObject {
    const stored: JsonObject = {};
    for (const key of Object.keys(value)) {
      const next = value[key] as Json;
      const before = hasOwn(from, key) ? from[key] : undefined;
      if (!this.same(next, before)) {
        const storedKey = this.table.writeKey(key);
        setKey(stored, storedKey, this.encode(next, before));
      }
    }
    for (const key of Object.keys(from))
      if (!hasOwn(value, key)) setKey(stored, this.table.writeKey(key), [TAG.removed]);
    return stored;
  }

  /** The UTF-8 length of a stored form's JSON, memoised per object (each ancestor weighs it again). */
  size(stored: Json): number {
    if (typeof stored !== 'object' || stored === null) return Buffer.byteLength(JSON.stringify(stored));
    const known = this.#sizes.get(stored);
    if (known !== undefined) return known;
    let size: number;
    if (Array.isArray(stored)) size = 1 + stored.reduce<number>((n, item) => n + this.size(item) + 1, 0);
    else {
      const keys = Object.keys(stored);
      size = keys.length === 0 ? 2 : 1;
      for (const key of keys) size += JSON.stringify(key).length + 1 + this.size(stored[key] as Json) + 1;
    }
    this.#sizes.set(stored, size);
    return size;
  }

  /** The shortest alternative; only its registrations stay in the table. */
  #cheapest(alternatives: readonly (() => Json)[]): Json {
    const mark = this.table.mark();
    let best: { stored: Json; size: number; entries: ReturnType<RefTable['since']> } | undefined;
    for (const alternative of alternatives) {
      const stored = alternative();
      const size = this.size(stored);
      if (best === undefined || size < best.size) best = { stored, size, entries: this.table.since(mark) };
      this.table.rollback(mark);
    }
    if (best === undefined) throw new Error('no alternative to encode');
    this.table.replay(best.entries);
    return best.stored;
  }
}

/**
 * Whether the decoder, rebuilding `value` from `from` (its keys in their order, then the new
 * keys), gets `keys` in their order: it does when the keys `from` shares come first, in
 * `from`'s order (the new keys then follow in `keys`' own order).
 */
function keepsOrder(keys: readonly string[], value: JsonObject, from: JsonObject): boolean {
  let next = 0;
  for (const key of Object.keys(from)) if (hasOwn(value, key) && keys[next++] !== key) return false;
  return true;
}

/** The keys every item shares, in order, when the array is two or more objects of one shape. */
function tableKeys(items: readonly Json[]): string[] | undefined {
  const first = items[0];
  if (items.length < 2 || !isObject(first)) return undefined;
  const keys = Object.keys(first);
  const shape = keys.join('\u0000');
  return items.every((item) => isObject(item) && Object.keys(item).join('\u0000') === shape)
    ? keys
    : undefined;
}
