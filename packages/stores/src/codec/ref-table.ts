import type { JsonIds } from './json-ids.js';
import { isObject, type Json } from './json.js';
import { parseJsonText } from './json-text.js';

/** Values whose JSON is shorter than this (in UTF-8 bytes) are never worth a reference (`-12` is 3). */
const MIN_REF_BYTES = 5;
/**
 * Objects whose JSON is shorter than this are neither stored against an earlier one like them
 * nor offered as one to store against (a diff saves little, and shaping every object costs).
 */
export const MIN_LIKE_CHARS = 64;
/** Keys shorter than this are never worth an alias (`"~a"` is 4 characters). */
const MIN_ALIAS_CHARS = 3;
/** An alias starts with this; a key of the run that does is written with it doubled. */
const ALIAS = '~';
/** Array-index keys (`"12"`) are not aliased: objects put them first, whatever the order they were written in. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

interface Entry {
  /** What it is indexed by: a string itself, else its number (`JsonIds`). */
  readonly key: string | number;
  readonly value: Json;
  /** Its keys in order, for an object of two or more keys (see `like`). */
  readonly shape: string | undefined;
}

/** Keys and values every run's table starts with (`preset-keys.ts`). */
export interface Preset {
  readonly keys: readonly string[];
  readonly values: readonly string[];
}

/** Each preset's table, built once: a new table copies it. Entries are immutable, so shared. */
const PREPARED = new WeakMap<Preset, RefTable>();

/** How far both lists were filled (`RefTable.mark`). */
export interface Mark {
  readonly values: number;
  readonly keys: number;
}

/**
 * The strings and subtrees a run has stored so far, numbered in the order the decoder meets
 * them: a later value that repeats one (a card repeating an observation's recipe, a
 * decision repeating its raw reply) is stored as `[1, index]`. A string holding JSON text
 * lends its parsed parts too (a reason step's `decision` is its `raw` reply parsed). Object
 * keys are numbered likewise, and a key met before is written as a short alias (`"~1f"`).
 *
 * The encoder registers tentatively while it weighs alternatives (`mark` / `rollback` /
 * `replay`); what the decoder registers is the truth both sides share.
 */
export class RefTable {
  readonly #entries: Entry[];
  /** Registered values by their `Entry.key`: a string by itself, an object or array by its number. */
  readonly #index: Map<string | number, number>;
  /** Registered objects by their keys (in order): the latest is what a new object of that shape is stored against. */
  readonly #shapes: Map<string, number[]>;
  readonly #keys: string[];
  readonly #keyIndex: Map<string, number>;
  /** Each key's alias (`"~1f"`), and which key an alias stands for: only well-formed aliases are in it. */
  readonly #aliases: string[];
  readonly #aliasIndex: Map<string, number>;

  /** A table holding `preset` (its keys, then its values), as every run's table starts. */
  static withPreset(json: JsonIds, preset: Preset): RefTable {
    let prepared = PREPARED.get(preset);
    if (prepared === undefined) {
      prepared = new RefTable(json);
      for (const key of preset.keys) prepared.#registerKey(key);
      for (const value of preset.values) prepared.register(value);
      PREPARED.set(preset, prepared);
    }
    return new RefTable(json, prepared);
  }

  /** An empty table, or a copy of `from` (copying the preset's maps is cheaper than building them per run). */
  constructor(
    private readonly json: JsonIds,
    from?: RefTable,
  ) {
    this.#entries = from === undefined ? [] : [...from.#entries];
    this.#index = new Map(from === undefined ? [] : from.#index);
    const shapes = from === undefined ? [] : [...from.#shapes];
    this.#shapes = new Map(shapes.map(([shape, indexes]) => [shape, [...indexes]]));
    this.#keys = from === undefined ? [] : [...from.#keys];
    this.#keyIndex = new Map(from === undefined ? [] : from.#keyIndex);
    this.#aliases = from === undefined ? [] : [...from.#aliases];
    this.#aliasIndex = new Map(from === undefined ? [] : from.#aliasIndex);
  }

  /** The latest registered object with the same keys in the same order (two or more keys; `MIN_LIKE_CHARS`). */
  like(value: Json): number | undefined {
    const shape = shapeOf(value);
    return shape === undefined ? undefined : this.#shapes.get(shape)?.at(-1);
  }

  /** The index of a registered value with the same JSON as this string, object or array. */
  lookup(value: string | object): number | undefined {
    return this.#index.get(typeof value === 'string' ? value : this.json.id(value));
  }

  get(index: unknown): Json {
    const entry = typeof index === 'number' ? this.#entries[index] : undefined;
    if (entry === undefined) throw new RangeError(`stored event: reference ${String(index)} is unknown`);
    return entry.value;
  }

  /** Registers a value the decoder has just produced (and the parts of JSON text it holds). */
  register(value: Json): void {
    if (typeof value === 'string') {
      if (this.#index.has(value) || !this.json.bytesAtLeast(value, MIN_REF_BYTES)) return;
      this.#push({ key: value, value, shape: undefined });
      const parsed = parseJsonText(value);
      if (parsed !== undefined) this.#registerDeep(parsed);
    } else if (typeof value === 'object' && value !== null) {
      const key = this.json.id(value);
      if (this.#index.has(key) || !this.json.bytesAtLeast(value, MIN_REF_BYTES)) return;
      const long = this.json.length(value) >= MIN_LIKE_CHARS;
      this.#push({ key, value, shape: long ? shapeOf(value) : undefined });
    }
  }

  /** How a key is stored: its alias when met before (and shorter), else itself (escaped); registers it. */
  writeKey(key: string): string {
    const index = this.#keyIndex.get(key);
    if (index !== undefined) return this.#aliases[index] ?? `${ALIAS}${index.toString(36)}`;
    this.#registerKey(key);
    return key.startsWith(ALIAS) ? `${ALIAS}${key}` : key;
  }

  /** The key a stored key stands for (the inverse of `writeKey`); registers it. */
  readKey(stored: string): string {
    if (!stored.startsWith(ALIAS)) {
      this.#registerKey(stored);
      return stored;
    }
    if (stored.startsWith(ALIAS + ALIAS)) {
      const key = stored.slice(1);
      this.#registerKey(key);
      return key;
    }
    const index = this.#aliasIndex.get(stored);
    const key = index === undefined ? undefined : this.#keys[index];
    if (key === undefined) throw new RangeError(`stored event: key alias ${stored} is unknown`);
    return key;
  }

  mark(): Mark {
    return { values: this.#entries.length, keys: this.#keys.length };
  }

  /** What was registered since `mark`. */
  since(mark: Mark): { values: readonly Entry[]; keys: readonly string[] } {
    return { values: this.#entries.slice(mark.values), keys: this.#keys.slice(mark.keys) };
  }

  rollback(mark: Mark): void {
    for (const entry of this.#entries.splice(mark.values).reverse()) {
      const { key, shape } = entry;
      this.#index.delete(key);
      if (shape !== undefined) this.#shapes.get(shape)?.pop();
    }
    for (const key of this.#keys.splice(mark.keys)) this.#keyIndex.delete(key);
    for (const alias of this.#aliases.splice(mark.keys)) this.#aliasIndex.delete(alias);
  }

  /** Registers again what a rolled-back alternative registered (the one the encoder chose). */
  replay(registered: ReturnType<RefTable['since']>): void {
    for (const entry of registered.values) if (!this.#index.has(entry.key)) this.#push(entry);
    for (const key of registered.keys) this.#registerKey(key);
  }

  #registerKey(key: string): void {
    if (key.length < MIN_ALIAS_CHARS || this.#keyIndex.has(key) || INDEX_KEY.test(key)) return;
    const index = this.#keys.length;
    const alias = `${ALIAS}${index.toString(36)}`;
    this.#keyIndex.set(key, index);
    this.#aliasIndex.set(alias, index);
    this.#keys.push(key);
    this.#aliases.push(alias);
  }

  #push(entry: Entry): void {
    const { shape } = entry;
    if (shape !== undefined) {
      const indexes = this.#shapes.get(shape) ?? [];
      indexes.push(this.#entries.length);
      this.#shapes.set(shape, indexes);
    }
    this.#index.set(entry.key, this.#entries.length);
    this.#entries.push(entry);
  }

  #registerDeep(value: Json): void {
    if (Array.isArray(value)) for (const item of value) this.#registerDeep(item);
    else if (isObject(value)) for (const item of Object.values(value)) this.#registerDeep(item);
    this.register(value);
  }
}

function shapeOf(value: Json): string | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length < 2 ? undefined : keys.join('\u0000');
}
