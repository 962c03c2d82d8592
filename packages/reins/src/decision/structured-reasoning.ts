import type { Decision } from './decision.js';
import { validateDecision } from './decision.js';
import {
  parseStructured,
  type ParseLimits,
  type StructuredParse,
  type Validation,
} from './parse-structured.js';

/**
 * Structured reasoning (seed 001 §4.2): what the model is after, what it knows, what it still
 * needs from the user, and what it will do next. Non-empty `missing_info` means "ask, do not
 * guess": the runtime turns it into a question for the user instead of a tool call.
 */
export interface StructuredReasoning {
  readonly current_goal: string;
  readonly known_facts: readonly string[];
  readonly missing_info: readonly string[];
  readonly next_action: string;
}

const FIELDS = ['current_goal', 'known_facts', 'missing_info', 'next_action'] as const;

/** Strict: all four fields, strings and string arrays, no other keys. */
export function validateReasoning(value: unknown): Validation<StructuredReasoning> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      message: 'reasoning: expected an object {current_goal, known_facts, missing_info, next_action}',
    };
  }
  const record = value as Readonly<Record<string, unknown>>;
  const missing = FIELDS.filter((f) => record[f] === undefined);
  if (missing.length > 0) return { ok: false, message: `reasoning: missing field(s) ${missing.join(', ')}` };
  const extra = Object.keys(record).filter((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra.length > 0) return { ok: false, message: `reasoning: unknown field(s) ${extra.join(', ')}` };
  const { current_goal, known_facts, missing_info, next_action } = record;
  if (typeof current_goal !== 'string')
    return { ok: false, message: 'reasoning.current_goal: expected a string' };
  if (typeof next_action !== 'string')
    return { ok: false, message: 'reasoning.next_action: expected a string' };
  if (!isStrings(known_facts))
    return { ok: false, message: 'reasoning.known_facts: expected an array of strings' };
  if (!isStrings(missing_info))
    return { ok: false, message: 'reasoning.missing_info: expected an array of strings' };
  return {
    ok: true,
    value: {
      current_goal,
      known_facts,
      missing_info: missing_info.filter((m) => m.trim() !== ''),
      next_action,
    },
  };
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** The question asked for the `missing_info` of structured reasoning. */
export function missingInfoQuestion(missing: readonly string[]): string {
  return `To go on I need: ${missing.join('; ')}. Please tell me.`;
}

/** A decision made with structured reasoning: the reasoning is kept beside the decision. */
export type ReasonedDecision = Decision & { readonly reasoning?: StructuredReasoning };

/**
 * The decision format with structured reasoning (opt-in per agent): the usual decision plus
 * `"reasoning": {current_goal, known_facts, missing_info, next_action}`. Non-empty
 * `missing_info` makes the decision an `ask` (the question lists what is missing), whatever
 * else the reply says: missing information is asked for, never guessed. A reasoning object
 * with missing fields fails the schema.
 */
export function validateReasonedDecision(
  value: Readonly<Record<string, unknown>>,
): Validation<ReasonedDecision> {
  const given = value.reasoning ?? undefined;
  if (given === undefined) return validateDecision(value);
  const reasoning = validateReasoning(given);
  if (!reasoning.ok) return reasoning;
  const thought = typeof value.thought === 'string' ? value.thought : reasoning.value.current_goal;
  if (reasoning.value.missing_info.length > 0) {
    const ask = missingInfoQuestion(reasoning.value.missing_info);
    return { ok: true, value: { kind: 'ask', thought, ask, reasoning: reasoning.value } };
  }
  const decision = validateDecision(value);
  return decision.ok ? { ok: true, value: { ...decision.value, reasoning: reasoning.value } } : decision;
}

/** `parseDecision` for agents that opted into structured reasoning. */
export function parseReasonedDecision(raw: string, limits?: ParseLimits): StructuredParse<ReasonedDecision> {
  return parseStructured(raw, validateReasonedDecision, limits);
}
