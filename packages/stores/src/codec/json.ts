/** JSON values as the codec handles them, and the few helpers every part of it needs. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
