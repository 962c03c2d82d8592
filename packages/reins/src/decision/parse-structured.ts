import type { z } from 'zod';
import { balancedObjects, fencedBlocks, nestingDepth, valueDepth } from './json-candidates.js';
import { repairParsers, type RepairParsers } from './repair-parsers.js';

/**
 * How the JSON was obtained: as-is, cut out of surrounding text, or after the one repair.
 * `native`: the decision came from the provider's tool-call channel, not from text
 * (`parseStructured` never returns it).
 */
export type ParseVia = 'clean' | 'extracted' | 'repaired' | 'native';

export type ParseFailure =
  'empty' | 'too_large' | 'too_deep' | 'no_json' | 'invalid_json' | 'not_an_object' | 'schema';

export type StructuredParse<T> =
  | { readonly ok: true; readonly value: T; readonly via: ParseVia; readonly raw: string }
  | {
      readonly ok: false;
      readonly raw: string;
      readonly failure: ParseFailure;
      readonly message: string;
      /** Set when JSON was found but failed the schema. */
      readonly via?: ParseVia;
      /**
       * The reply needed the one repair and the repair parsers were not loaded yet (they load
       * on first need): await `loadRepairParsers()` and parse again for the final answer.
       */
      readonly repairPending?: true;
    };

export interface ParseLimits {
  /** Longest text considered at all (characters). */
  readonly maxChars: number;
  /** Longest candidate handed to the repair step (jsonrepair is roughly quadratic). */
  readonly maxRepairChars: number;
  /** Deepest bracket nesting accepted. */
  readonly maxDepth: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = Object.freeze({
  maxChars: 100_000,
  maxRepairChars: 32_000,
  maxDepth: 32,
});

/** The outcome of checking a found JSON object: the typed value, or why it does not fit. */
export type Validation<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** A zod schema, or a hand-written check for hot paths. */
export type StructuredSchema<T> =
  z.ZodType<T> | ((value: Readonly<Record<string, unknown>>) => Validation<T>);

type JsonFound =
  | { value: Record<string, unknown>; via: ParseVia }
  | { failure: ParseFailure; message: string; pending?: true };

/**
 * Strict JSON → extraction (code fences, prose around: the first balanced object that fits
 * `schema`) → exactly one repair (JSON5, then jsonrepair, of one candidate) → `schema`.
 * Total: never throws, keeps `raw` on every path, refuses a repair that turns the object
 * into another shape, and caps size and depth before repairing (depth again on the value).
 */
export function parseStructured<T>(
  raw: string,
  schema: StructuredSchema<T>,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): StructuredParse<T> {
  const validate = typeof schema === 'function' ? schema : zodValidation(schema);
  try {
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (text === '') return failed(raw, 'empty', 'empty reply');
    if (raw.length > limits.maxChars) {
      return failed(raw, 'too_large', `reply longer than ${limits.maxChars} characters`);
    }
    const clean = tryJson(text);
    // Valid JSON (the common case, kept free of closures): the depth cap holds on the value —
    // walked only when the text is long enough to be too deep (a value nested d levels needs
    // at least 2d characters; a short tool call is not walked).
    if (clean !== undefined) {
      if (text.length >= 2 * (limits.maxDepth + 1) && tooDeep(clean, limits))
        return failed(raw, 'too_deep', `nesting deeper than ${limits.maxDepth}`);
      return judge(raw, asObject(clean, 'clean'), validate, limits, true);
    }
    return parseDirty(raw, text, validate, limits);
  } catch (thrown) {
    // A library bug (e.g. RangeError deep inside a parser) must not escape: the raw text is kept.
    return failed(raw, 'invalid_json', `parser failed: ${String(thrown)}`);
  }
}

function tooDeep(value: unknown, limits: ParseLimits): boolean {
  return valueDepth(value, limits.maxDepth) > limits.maxDepth;
}

function failed<T>(raw: string, failure: ParseFailure, message: string): StructuredParse<T> {
  return { ok: false, raw, failure, message };
}

/** Depth (on the value: a text scan can be misled by a stray quote), then `validate`. */
function judge<T>(
  raw: string,
  found: JsonFound,
  validate: (value: Readonly<Record<string, unknown>>) => Validation<T>,
  limits: ParseLimits,
  depthChecked = false,
): StructuredParse<T> {
  if ('failure' in found) {
    if (found.pending === true)
      return { ok: false, raw, failure: found.failure, message: found.message, repairPending: true };
    return failed(raw, found.failure, found.message);
  }
  if (!depthChecked && tooDeep(found.value, limits)) {
    return failed(raw, 'too_deep', `nesting deeper than ${limits.maxDepth}`);
  }
  const checked = validate(found.value);
  if (checked.ok) return { ok: true, value: checked.value, via: found.via, raw };
  return { ok: false, raw, failure: 'schema', message: checked.message, via: found.via };
}

/** Extraction and the one repair, for replies that are not plain JSON. */
function parseDirty<T>(
  raw: string,
  text: string,
  validate: (value: Readonly<Record<string, unknown>>) => Validation<T>,
  limits: ParseLimits,
): StructuredParse<T> {
  // Before extraction and the repair: the cap on the text (jsonrepair recurses).
  if (nestingDepth(raw) > limits.maxDepth)
    return failed(raw, 'too_deep', `nesting deeper than ${limits.maxDepth}`);
  const fences = fencedBlocks(text);
  const { complete, truncated } = balancedObjects(text);
  const unparsed = new Set<string>();
  let firstMisfit: StructuredParse<T> | undefined;
  for (const candidate of [...fences, ...complete]) {
    const value = tryJson(candidate);
    if (value === undefined) unparsed.add(candidate);
    else if (isPlainObject(value)) {
      const judged = judge(raw, { value, via: 'extracted' }, validate, limits);
      if (judged.ok) return judged;
      firstMisfit ??= judged;
    }
  }
  const target = repairTarget(
    text,
    fences.filter((f) => unparsed.has(f)),
    complete.find((c) => unparsed.has(c)) ?? truncated,
  );
  if (target === undefined) return firstMisfit ?? failed(raw, 'no_json', 'no JSON object in the reply');
  const repaired = judge(raw, repairOnce(target, limits), validate, limits);
  return repaired.ok ? repaired : (firstMisfit ?? repaired);
}

function zodValidation<T>(schema: z.ZodType<T>): (value: Readonly<Record<string, unknown>>) => Validation<T> {
  return (value) => {
    const checked = schema.safeParse(value);
    if (checked.success) return { ok: true, value: checked.data };
    const issues = checked.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return { ok: false, message: issues.join('; ') };
  };
}

/**
 * The first fence, else the first object. A fence whose object does not close inside it was
 * cut short by a ``` inside a string value (a code block in `final`): the candidate is then
 * the object that starts there and closes after it, so repair does not drop the tail.
 */
function repairTarget(text: string, fences: string[], object: string | undefined): string | undefined {
  const fence = fences[0];
  if (fence === undefined) return object;
  if (balancedObjects(fence, 1).truncated === undefined) return fence;
  return balancedObjects(text.slice(text.indexOf(fence)), 1).complete[0] ?? fence;
}

function repairOnce(candidate: string, limits: ParseLimits): JsonFound {
  if (candidate.length > limits.maxRepairChars) {
    return { failure: 'too_large', message: `candidate longer than ${limits.maxRepairChars} characters` };
  }
  const parsers = repairParsers();
  if (parsers === undefined) return PENDING;
  const viaJson5 = tryJson5(parsers, candidate);
  if (viaJson5 !== undefined) return asObject(viaJson5, 'repaired');
  try {
    const repaired = parsers.jsonrepair(candidate);
    const value = tryJson(repaired);
    if (value === undefined) return { failure: 'invalid_json', message: 'repair produced no JSON' };
    return asObject(value, 'repaired');
  } catch (thrown) {
    return {
      failure: 'invalid_json',
      message: `not repairable: ${thrown instanceof Error ? thrown.message : ''}`,
    };
  }
}

function asObject(value: unknown, via: ParseVia): JsonFound {
  if (isPlainObject(value)) return { value, via };
  const shape = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  return { failure: 'not_an_object', message: `expected a JSON object, got ${shape}` };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The repair was wanted before its parsers were loaded (see `repair-parsers.ts`). */
const PENDING: JsonFound = {
  failure: 'invalid_json',
  message: 'not repaired yet: the repair parsers are loading (await loadRepairParsers() and parse again)',
  pending: true,
};

function tryJson5(parsers: RepairParsers, text: string): unknown {
  try {
    return parsers.json5(text);
  } catch {
    return undefined;
  }
}
