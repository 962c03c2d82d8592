import type { z } from 'zod';
import { parseStructured } from './decision/parse-structured.js';
import type { Observation } from './observation.js';
import { inputJsonSchema } from './util/zod-duck.js';

/** What the code knows when it stamps an answer: every observation of the run, in order. */
export interface AnswerEvidence {
  readonly observations: readonly Observation[];
}

/**
 * A structured final answer (action cards, a form, a report): the model answers
 * `{"thought": …, "final": {…}}` (or final text that is that JSON object), and the runtime
 * checks it against `schema` with the central parser (one repair). Valid → the message is
 * `format: "structured"` with `data`; not valid after the repair → `format: "raw"` with the
 * model's text, labeled, never blank. `finalize` runs after validation and may overwrite
 * fields from what the tools really returned (provenance labels, ids): a model that writes
 * "verified" changes nothing the code stamps.
 */
export interface AnswerFormat<T = unknown> {
  readonly schema: z.ZodType<T>;
  /** The message text for the data (what a client without cards shows). */
  readonly text: (data: T) => string;
  readonly finalize?: (data: T, evidence: AnswerEvidence) => T;
}

/** Types an answer format (infers `T` from the schema for `text` and `finalize`). */
export function defineAnswer<T>(format: AnswerFormat<T>): AnswerFormat<T> {
  return format;
}

/** The message an answer becomes. */
export interface ShapedAnswer {
  readonly text: string;
  readonly format: 'structured' | 'raw';
  readonly data?: unknown;
}

/** What the model's final reply held: an object (`"final": {…}`) or text. */
export interface FinalReply {
  readonly text: string;
  readonly data?: Readonly<Record<string, unknown>> | undefined;
}

/** Checks a final reply against the answer format: data with text, or the raw text, labeled. */
export function shapeAnswer(
  format: AnswerFormat,
  reply: FinalReply,
  observations: () => readonly Observation[],
): ShapedAnswer {
  const parsed =
    reply.data !== undefined
      ? format.schema.safeParse(reply.data)
      : (() => {
          const found = parseStructured(reply.text, format.schema);
          return found.ok ? { success: true as const, data: found.value } : { success: false as const };
        })();
  if (!parsed.success) return { text: reply.text, format: 'raw' };
  const data =
    format.finalize === undefined
      ? parsed.data
      : format.finalize(parsed.data, { observations: observations() });
  return { text: format.text(data), format: 'structured', data };
}

/** The agent's instructions, with the answer object described when the agent has a format. */
export function instructionsWithAnswer(
  instructions: string | undefined,
  answer: AnswerFormat | undefined,
): string | undefined {
  if (answer === undefined) return instructions;
  const format = answerFormatPrompt(answer);
  return instructions === undefined ? format : `${instructions}\n\n${format}`;
}

const prompts = new WeakMap<AnswerFormat, string>();

/** The system-prompt paragraph describing the answer object (built once per format). */
export function answerFormatPrompt(format: AnswerFormat): string {
  let text = prompts.get(format);
  if (text === undefined) {
    const schema = inputJsonSchema(format.schema, 'answer format');
    text = [
      'Your final answer is a JSON object, not a string: {"thought": "<why>", "final": {…}}.',
      `The "final" object must match this JSON Schema: ${JSON.stringify(schema)}`,
    ].join('\n');
    prompts.set(format, text);
  }
  return text;
}
