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

/** Sets an own property, `__proto__` included (plain assignment would change the prototype). */
export function setKey(target: JsonObject, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
