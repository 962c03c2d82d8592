/**
 * Checks of the few fixed shapes core validates by hand (the planner's reply, a scripted
 * reply), reported in zod's words so messages read as they did when zod checked them — and so
 * `import('reins')` needs no zod.
 */

export interface ShapeIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** Issues found so far; `at(path)` adds one. */
export class ShapeIssues {
  readonly list: ShapeIssue[] = [];

  add(path: readonly (string | number)[], message: string): void {
    this.list.push({ path, message });
  }

  /** A strict object's check: one issue naming the keys of `value` outside `known`. */
  refuseUnknownKeys(value: object, known: ReadonlySet<string>, path: readonly (string | number)[]): void {
    const stray: string[] = [];
    for (const key in value) if (!known.has(key)) stray.push(key); // inherited ones too, as zod's `for…in`
    if (stray.length > 0) {
      this.add(
        path,
        `Unrecognized key${stray.length > 1 ? 's' : ''}: ${stray.map((k) => `"${k}"`).join(', ')}`,
      );
    }
  }

  /** `path: message; …`, `(root)` for the top (the format the parsers report). */
  describe(): string {
    return this.list.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  }
}

/** An object, not null, not an array (what a zod object schema accepts). */
export function isObjectLike(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain object (what `z.record` accepts): `{}` or `Object.create(null)`, not a class instance. */
export function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (!isObjectLike(value)) return false;
  const ctor: unknown = value.constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto: unknown = ctor.prototype;
  return isObjectLike(proto) && Object.hasOwn(proto, 'isPrototypeOf');
}

/** A record's entries as a new plain object; `__proto__` is dropped, as zod does. */
export function copyRecord(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (key !== '__proto__') copy[key] = value[key];
  return copy;
}

/** A string's length as zod measures it: in code points (a surrogate pair counts once). */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

export function invalidType(expected: string, value: unknown): string {
  return `Invalid input: expected ${expected}, received ${receivedType(value)}`;
}

const UNITS = { string: 'characters', array: 'items' } as const;

export function tooSmall(origin: keyof typeof UNITS, minimum: number): string {
  return `Too small: expected ${origin} to have >=${minimum} ${UNITS[origin]}`;
}

export function tooBig(origin: keyof typeof UNITS, maximum: number): string {
  return `Too big: expected ${origin} to have <=${maximum} ${UNITS[origin]}`;
}

/** zod's name for what it got: `null`, `array`, `NaN`, a class name, else `typeof`. */
function receivedType(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object' && Object.getPrototypeOf(value) !== Object.prototype) {
    const ctor: unknown = (value as { constructor?: unknown }).constructor;
    if (typeof ctor === 'function' && ctor.name !== '') return ctor.name;
  }
  return typeof value;
}

/** A finite number (zod's `z.number()`), or the message why not. */
export function numberIssue(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? undefined : invalidType('number', value);
}

/** A safe integer ≥ 0 (zod's `z.number().int().nonnegative()`), or the message why not. */
export function countIssue(value: unknown): string | undefined {
  const notNumber = numberIssue(value);
  if (notNumber !== undefined) return notNumber;
  const n = value as number;
  if (!Number.isInteger(n)) return invalidType('int', n);
  if (n > Number.MAX_SAFE_INTEGER) return `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`;
  return n < 0 ? 'Too small: expected number to be >=0' : undefined;
}
