import { Buffer } from 'node:buffer';

/** JSON values as the codec handles them, and the few helpers every part of it needs. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The JSON text of a value, memoised per object: the encoder compares and measures subtrees
 * many times (each level of a diff asks again), and the trees it sees are never mutated.
 */
export class JsonText {
  readonly #cache = new WeakMap<object, string>();
  /** `"key":` per key met: a run's objects share few keys. */
  readonly #keys = new Map<string, string>();

  of(value: Json): string {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value);
    let text = this.#cache.get(value);
    if (text === undefined) {
      // Built from the children's (memoised) texts: each subtree is serialised once, not once per ancestor.
      if (Array.isArray(value)) {
        text = '[';
        for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + this.of(value[i] as Json);
        text += ']';
      } else {
        text = '{';
        for (const key of Object.keys(value)) {
          let keyText = this.#keys.get(key);
          if (keyText === undefined) this.#keys.set(key, (keyText = `${JSON.stringify(key)}:`));
          text += (text.length === 1 ? '' : ',') + keyText + this.of(value[key] as Json);
        }
        text += '}';
      }
      this.#cache.set(value, text);
    }
    return text;
  }

  /** Drops what is memoised for a tree the codec does not own (a caller's event may change later). */
  forget(value: Json): void {
    if (typeof value !== 'object' || value === null) return;
    this.#cache.delete(value); // and the children's, whether or not the parent's text was asked for
    if (Array.isArray(value)) for (const item of value) this.forget(item);
    else for (const key of Object.keys(value)) this.forget(value[key] as Json);
  }

  /**
   * Whether the value's JSON text is at least `bytes` long in UTF-8. Its UTF-16 length (a
   * string's plus its two quotes) is a lower bound, so only short texts are measured.
   */
  bytesAtLeast(value: string | object, bytes: number): boolean {
    if (typeof value === 'string')
      return value.length + 2 >= bytes || Buffer.byteLength(JSON.stringify(value)) >= bytes;
    const text = this.of(value as Json);
    return text.length >= bytes || Buffer.byteLength(text) >= bytes;
  }
}

/** Whether a value prints as `null` in JSON (non-finite numbers do). */
export const printsNull = (v: Json | undefined): boolean =>
  v === null || (typeof v === 'number' && !Number.isFinite(v));

/** Whether two values have the same JSON text (key order included), compared without building it. */
export function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null)
    return printsNull(a) && printsNull(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] as Json, b[i] as Json)) return false;
    return true;
  }
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key !== otherKeys[i] || !sameJson(a[key] as Json, b[key] as Json)) return false;
  }
  return true;
}

/** Sets an own property, `__proto__` included (plain assignment would change the prototype). */
export function setKey(target: JsonObject, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
