import { Buffer } from 'node:buffer';
import type { Json, JsonObject } from './json.js';

/** What the codec knows of a string or an object: its number, how it appears in a parent's description, its JSON length. */
interface Known {
  readonly id: number;
  readonly token: string;
  readonly length: number;
}

/** A number, boolean or null as JSON writes it: also its token in a description. */
const primitiveText = (value: number | boolean | null): string =>
  typeof value === 'number' && !Number.isFinite(value) ? 'null' : String(value);

/** What JSON escapes in a string (or may: a surrogate, when it is alone). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The length of a string's JSON text, written out only when it has something to escape. */
const jsonLength = (value: string): number =>
  ESCAPED.test(value) ? JSON.stringify(value).length : value.length + 2;

/**
 * Tells JSON values apart by content without building their texts. Each distinct string and
 * object a run meets gets a number, equal for two values exactly when their JSON texts are
 * (key order included), memoised per object and per string, with the length of that text.
 * An object's number comes from a short description of it: its keys and its children's
 * numbers, so each level costs its own size. (Texts built from the children's texts held
 * every byte below them and were copied and hashed again at every level.)
 */
export class JsonIds {
  readonly #objects = new WeakMap<object, Known>();
  readonly #strings = new Map<string, Known>();
  readonly #descriptions = new Map<string, number>();
  /** `"key":` per key met: a run's objects share few keys. */
  readonly #keys = new Map<string, string>();

  /** The value's number: two strings (or two objects) share one exactly when their JSON texts are equal. */
  id(value: string | object): number {
    return this.#known(value).id;
  }

  /** The length of the value's JSON text, in UTF-16 code units. */
  length(value: Json): number {
    return typeof value === 'string' || (typeof value === 'object' && value !== null)
      ? this.#known(value).length
      : primitiveText(value).length;
  }

  /**
   * Whether the value's JSON text is at least `bytes` long in UTF-8. Its UTF-16 length is a
   * lower bound, so only short values are written out and measured.
   */
  bytesAtLeast(value: string | object, bytes: number): boolean {
    const length = typeof value === 'string' ? value.length + 2 : this.#known(value).length;
    return length >= bytes || Buffer.byteLength(JSON.stringify(value)) >= bytes;
  }

  /**
   * Drops what is memoised for a tree the codec does not own (a caller's event may change
   * later). Walked rather than noted as described: the parsed model replies met on the way
   * are the codec's own, and the check describes them again.
   */
  forget(value: Json): void {
    if (typeof value !== 'object' || value === null) return;
    this.#objects.delete(value); // and the children's, whether or not the parent was asked about
    if (Array.isArray(value)) for (const item of value) this.forget(item);
    else for (const key of Object.keys(value)) this.forget(value[key] as Json);
  }

  #known(value: string | object): Known {
    if (typeof value === 'string') {
      let known = this.#strings.get(value);
      if (known === undefined) {
        const id = this.#strings.size;
        known = { id, token: `s${id}`, length: jsonLength(value) };
        this.#strings.set(value, known);
      }
      return known;
    }
    let known = this.#objects.get(value);
    if (known === undefined) {
      // Only JSON reaches the codec's maps: an object here is an array or a JSON object.
      known = Array.isArray(value) ? this.#describeArray(value) : this.#describeObject(value as JsonObject);
      this.#objects.set(value, known);
    }
    return known;
  }

  #describeArray(value: readonly Json[]): Known {
    let description = '[';
    let length = value.length === 0 ? 2 : 1 + value.length; // brackets and commas
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as Json;
      const part =
        typeof item === 'string' || (typeof item === 'object' && item !== null)
          ? this.#known(item)
          : undefined;
      const token = part === undefined ? primitiveText(item as number | boolean | null) : part.token;
      description += `${token},`;
      length += part === undefined ? token.length : part.length;
    }
    return this.#numbered(description, length);
  }

  #describeObject(value: JsonObject): Known {
    let description = '{';
    const keys = Object.keys(value);
    let length = keys.length === 0 ? 2 : 1 + keys.length; // braces and commas
    for (const key of keys) {
      let keyText = this.#keys.get(key);
      if (keyText === undefined) this.#keys.set(key, (keyText = `${JSON.stringify(key)}:`));
      const item = value[key] as Json;
      const part =
        typeof item === 'string' || (typeof item === 'object' && item !== null)
          ? this.#known(item)
          : undefined;
      const token = part === undefined ? primitiveText(item as number | boolean | null) : part.token;
      description += `${keyText}${token},`;
      length += keyText.length + (part === undefined ? token.length : part.length);
    }
    return this.#numbered(description, length);
  }

  #numbered(description: string, length: number): Known {
    let id = this.#descriptions.get(description);
    if (id === undefined) this.#descriptions.set(description, (id = this.#descriptions.size));
    return { id, token: `o${id}`, length };
  }
}
