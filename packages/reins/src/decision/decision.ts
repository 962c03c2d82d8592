import { z } from 'zod';
import {
  parseStructured,
  type ParseLimits,
  type StructuredParse,
  type Validation,
} from './parse-structured.js';

/**
 * What one model step decided. Exactly one of: call a tool, answer, or ask the user.
 * `thought` is the model's stated reasoning (may be empty); it is evidence, never trusted.
 */
export type Decision =
  | {
      readonly kind: 'action';
      readonly thought: string;
      readonly action: string;
      readonly input: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'final'; readonly thought: string; readonly final: string }
  | { readonly kind: 'ask'; readonly thought: string; readonly ask: string };

/**
 * The decision format, checked by hand because it runs on every model step (a zod
 * transform costs ~10× more here). Rules: exactly one of `action` / `final` / `ask`, each a
 * non-blank string; `input` (or the seeds' spelling `action_input`) an object, absent = `{}`;
 * `thought` a string, absent = `""`; `null` counts as absent (models write `"input": null`);
 * unknown keys are dropped.
 */
export function validateDecision(value: Readonly<Record<string, unknown>>): Validation<Decision> {
  const thought = value.thought ?? '';
  if (typeof thought !== 'string') return fail('thought: expected a string');
  const action = value.action ?? undefined;
  const final = value.final ?? undefined;
  const ask = value.ask ?? undefined;
  const present =
    (action === undefined ? 0 : 1) + (final === undefined ? 0 : 1) + (ask === undefined ? 0 : 1);
  if (present !== 1) {
    const keys = (['action', 'final', 'ask'] as const).filter((k) => value[k] != null);
    return fail(
      present === 0
        ? 'one of "action", "final" or "ask" is required'
        : `exactly one of "action", "final" or "ask" is allowed, got ${keys.join(', ')}`,
    );
  }
  if (action !== undefined) {
    if (!isNonBlank(action)) return fail('action: must not be blank (a tool name)');
    const input = value.input ?? undefined;
    const alias = value.action_input ?? undefined;
    if (input !== undefined && alias !== undefined) return fail('give "input" or "action_input", not both');
    const given = input ?? alias ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) return fail('input: expected a JSON object');
    return {
      ok: true,
      value: { kind: 'action', thought, action: action.trim(), input: withoutProto(given) },
    };
  }
  if (final !== undefined) {
    return isNonBlank(final)
      ? { ok: true, value: { kind: 'final', thought, final } }
      : fail('final: must not be blank');
  }
  return isNonBlank(ask)
    ? { ok: true, value: { kind: 'ask', thought, ask } }
    : fail('ask: must not be blank');
}

/** JSON.parse makes `"__proto__"` an own key; drop it so no later merge can set a prototype. */
function withoutProto(input: object): Record<string, unknown> {
  if (!Object.hasOwn(input, '__proto__')) return input as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (key !== '__proto__') copy[key] = value;
  return copy;
}

function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function fail(message: string): Validation<never> {
  return { ok: false, message };
}

/** The same rules as a zod schema, for callers composing schemas (one source: `validateDecision`). */
export const decisionSchema: z.ZodType<Decision> = z
  .record(z.string(), z.unknown())
  .transform((value, ctx) => {
    const checked = validateDecision(value);
    if (checked.ok) return checked.value;
    ctx.addIssue({ code: 'custom', message: checked.message });
    return z.NEVER;
  });

export type DecisionParse = StructuredParse<Decision>;

/**
 * The one place model output becomes a `Decision`. Total: never throws; `raw` is always kept;
 * `via` says whether the JSON was clean, extracted from prose/fences, or repaired once.
 */
export function parseDecision(raw: string, limits?: ParseLimits): DecisionParse {
  return parseStructured(raw, validateDecision, limits);
}
