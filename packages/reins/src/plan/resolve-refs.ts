/**
 * References from one step's input to another step's output: an input value that is exactly
 * `{"$ref": "<stepId>.output.<path>"}` (a step of this plan) or
 * `{"$ref": "task.<action>.output.<path>"}` (the latest output of that action in the task state).
 */
export type Ref =
  | {
      readonly kind: 'step';
      readonly stepId: string;
      readonly path: readonly string[];
      readonly text: string;
    }
  | {
      readonly kind: 'task';
      readonly action: string;
      readonly path: readonly string[];
      readonly text: string;
    };

/** Where a reference sits in an input (dotted path) and what it says. */
export interface FoundRef {
  readonly at: string;
  /** `undefined` when the `$ref` text is malformed. */
  readonly ref: Ref | undefined;
  readonly text: string;
}

const STEP_REF = /^([A-Za-z][\w-]*)\.output((?:\.[\w-]+)*)$/;
const TASK_REF = /^task\.([A-Za-z][\w-]*)\.output((?:\.[\w-]+)*)$/;

export function parseRef(text: string): Ref | undefined {
  const task = TASK_REF.exec(text);
  if (task !== null) return { kind: 'task', action: task[1] as string, path: segments(task[2]), text };
  const step = STEP_REF.exec(text);
  if (step === null || step[1] === 'task') return undefined;
  return { kind: 'step', stepId: step[1] as string, path: segments(step[2]), text };
}

function segments(tail: string | undefined): string[] {
  return tail === undefined || tail === '' ? [] : tail.slice(1).split('.');
}

/** A `{"$ref": string}` object (exactly that one key). */
export function refText(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== '$ref') return undefined;
  const text = (value as { $ref: unknown }).$ref;
  return typeof text === 'string' ? text : undefined;
}

/** Every reference in an input, depth-first, with its dotted path. */
export function findRefs(input: unknown, at = ''): FoundRef[] {
  const text = refText(input);
  if (text !== undefined) return [{ at: at || '(root)', ref: parseRef(text), text }];
  if (Array.isArray(input)) return input.flatMap((item, i) => findRefs(item, `${at}[${i}]`));
  if (input !== null && typeof input === 'object') {
    return Object.entries(input).flatMap(([key, value]) => findRefs(value, at === '' ? key : `${at}.${key}`));
  }
  return [];
}

/** The value at `path` inside `value`, or `undefined` (own keys only). */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (here === null || typeof here !== 'object' || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

export type Resolved =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/**
 * The input with every reference replaced by the value it points at (`lookup` gives a step's
 * or an action's output). A reference to nothing is an error, never `undefined` passed on.
 */
export function resolveRefs(
  input: unknown,
  lookup: (ref: Ref) => { found: boolean; output?: unknown },
): Resolved {
  const problems: string[] = [];
  const walk = (value: unknown, at: string): unknown => {
    const text = refText(value);
    if (text !== undefined) {
      const ref = parseRef(text);
      if (ref === undefined) {
        problems.push(`${at}: malformed reference ${JSON.stringify(text)}`);
        return undefined;
      }
      const source = lookup(ref);
      const resolved = source.found ? valueAt(source.output, ref.path) : undefined;
      if (resolved === undefined) problems.push(`${at}: reference ${text} points at nothing`);
      return resolved;
    }
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${at}[${i}]`));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value))
        out[key] = walk(item, at === '' ? key : `${at}.${key}`);
      return out;
    }
    return value;
  };
  const value = walk(input, '');
  return problems.length === 0 ? { ok: true, value } : { ok: false, message: problems.join('; ') };
}
