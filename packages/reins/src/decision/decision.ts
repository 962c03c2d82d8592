import {
  parseStructured,
  type ParseLimits,
  type StructuredParse,
  type Validation,
} from './parse-structured.js';

/** One tool call of a turn. `callId` is the provider's id for a native tool call. */
export interface ActionCall {
  readonly action: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly callId?: string;
  /**
   * Set when a native call's arguments were not a JSON object even after the one repair:
   * the call is refused (`INVALID_PARAMETER`) and `input` is `{}`.
   */
  readonly inputError?: string;
}

/**
 * What one model step decided. Exactly one of: call a tool, call several tools (native tool
 * calls, or `"actions": [...]` in JSON), answer, or ask the user. `thought` is the model's
 * stated reasoning (may be empty); it is evidence, never trusted.
 */
export type Decision =
  | {
      readonly kind: 'action';
      readonly thought: string;
      readonly action: string;
      readonly input: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'actions'; readonly thought: string; readonly actions: readonly ActionCall[] }
  | {
      readonly kind: 'final';
      readonly thought: string;
      /** The answer text; when the model answered with an object, its JSON. */
      readonly final: string;
      /** Set when `final` was a JSON object (a structured answer, see `AnswerFormat`). */
      readonly data?: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'ask'; readonly thought: string; readonly ask: string };

/**
 * The decision format, checked by hand because it runs on every model step (a zod
 * transform costs ~10× more here). Rules: exactly one of `action` / `actions` / `final` /
 * `ask`; `action`, `ask` non-blank strings, `final` a non-blank string or an object (a structured
 * answer, kept as `data`); `input` (or the seeds' spelling
 * `action_input`) an object, absent = `{}`; `actions` a non-empty array of
 * `{action, input}`; `thought` a string, absent = `""`; `null` counts as absent (models
 * write `"input": null`); unknown keys are dropped.
 */
export function validateDecision(value: Readonly<Record<string, unknown>>): Validation<Decision> {
  const thought = value.thought ?? '';
  if (typeof thought !== 'string') return fail('thought: expected a string');
  const action = value.action ?? undefined;
  const actions = value.actions ?? undefined;
  const final = value.final ?? undefined;
  const ask = value.ask ?? undefined;
  const present =
    (action === undefined ? 0 : 1) +
    (actions === undefined ? 0 : 1) +
    (final === undefined ? 0 : 1) +
    (ask === undefined ? 0 : 1);
  if (present !== 1) {
    const keys = (['action', 'actions', 'final', 'ask'] as const).filter((k) => value[k] != null);
    return fail(
      present === 0
        ? 'one of "action", "actions", "final" or "ask" is required'
        : `exactly one of "action", "actions", "final" or "ask" is allowed, got ${keys.join(', ')}`,
    );
  }
  if (action !== undefined) {
    const call = validateCall(action, value, '');
    if (!call.ok) return call;
    return {
      ok: true,
      value: { kind: 'action', thought, action: call.value.action, input: call.value.input },
    };
  }
  if (actions !== undefined) {
    if (!Array.isArray(actions) || actions.length === 0) {
      return fail('actions: expected a non-empty array of {"action", "input"}');
    }
    const calls: ActionCall[] = [];
    for (let i = 0; i < actions.length; i++) {
      const item: unknown = actions[i];
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        return fail(`actions[${i}]: expected an object {"action", "input"}`);
      }
      const record = item as Readonly<Record<string, unknown>>;
      const call = validateCall(record.action ?? undefined, record, `actions[${i}].`);
      if (!call.ok) return call;
      calls.push(call.value);
    }
    return { ok: true, value: { kind: 'actions', thought, actions: calls } };
  }
  if (final !== undefined) {
    if (typeof final === 'object' && !Array.isArray(final)) {
      const data = withoutProto(final);
      return { ok: true, value: { kind: 'final', thought, final: JSON.stringify(data), data } };
    }
    return isNonBlank(final)
      ? { ok: true, value: { kind: 'final', thought, final } }
      : fail('final: must not be blank (a string, or an object for a structured answer)');
  }
  return isNonBlank(ask)
    ? { ok: true, value: { kind: 'ask', thought, ask } }
    : fail('ask: must not be blank');
}

function validateCall(
  action: unknown,
  value: Readonly<Record<string, unknown>>,
  at: string,
): Validation<ActionCall> {
  if (!isNonBlank(action)) return fail(`${at}action: must not be blank (a tool name)`);
  const input = value.input ?? undefined;
  const alias = value.action_input ?? undefined;
  if (input !== undefined && alias !== undefined)
    return fail(`${at}give "input" or "action_input", not both`);
  const given = input ?? alias ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) return fail(`${at}input: expected a JSON object`);
  return { ok: true, value: { action: action.trim(), input: withoutProto(given) } };
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

export type DecisionParse = StructuredParse<Decision>;

/**
 * The one place model output becomes a `Decision`. Total: never throws; `raw` is always kept;
 * `via` says whether the JSON was clean, extracted from prose/fences, or repaired once.
 */
export function parseDecision(raw: string, limits?: ParseLimits): DecisionParse {
  return parseStructured(raw, validateDecision, limits);
}

const ARGUMENTS_ARE_AN_OBJECT = (
  value: Readonly<Record<string, unknown>>,
): Validation<Record<string, unknown>> => ({
  ok: true,
  value: withoutProto(value),
});

/**
 * A turn of native tool calls as a decision (`via: "native"`): the text beside the calls
 * is the thought, each call's arguments go through the central parser (one repair), and
 * `raw` keeps the text. Arguments that still fail mark that call with `inputError`.
 */
export function decisionFromToolCalls(
  text: string,
  calls: readonly { readonly id: string; readonly name: string; readonly arguments: unknown }[],
  limits?: ParseLimits,
): DecisionParse {
  const actions = calls.map((call): ActionCall => {
    const action = typeof call.name === 'string' ? call.name.trim() : '';
    const callId = String(call.id);
    const args = call.arguments;
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      return { action, input: withoutProto(args), callId };
    }
    if (typeof args === 'string' && args.trim() === '') return { action, input: {}, callId };
    const parsed = parseStructured(typeof args === 'string' ? args : '', ARGUMENTS_ARE_AN_OBJECT, limits);
    if (parsed.ok) return { action, input: parsed.value, callId };
    return { action, input: {}, callId, inputError: `arguments are not a JSON object: ${parsed.message}` };
  });
  return { ok: true, value: { kind: 'actions', thought: text, actions }, via: 'native', raw: text };
}
