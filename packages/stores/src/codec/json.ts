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

  of(value: Json): string {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value);
    let text = this.#cache.get(value);
    if (text === undefined) {
      // Built from the children's (memoised) texts: each subtree is serialised once, not once per ancestor.
      text = Array.isArray(value)
        ? `[${value.map((item) => this.of(item)).join(',')}]`
        : `{${Object.keys(value)
            .map((key) => `${JSON.stringify(key)}:${this.of(value[key] as Json)}`)
            .join(',')}}`;
      this.#cache.set(value, text);
    }
    return text;
  }
}

/** Sets an own property, `__proto__` included (plain assignment would change the prototype). */
export function setKey(target: JsonObject, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
