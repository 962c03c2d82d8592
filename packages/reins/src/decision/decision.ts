import { z } from 'zod';
import { parseStructured, type ParseLimits, type StructuredParse } from './parse-structured.js';

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

const inputObject = z.record(z.string(), z.unknown());
const nonBlank = z.string().refine((s) => s.trim() !== '', 'must not be blank');

// Unknown top-level keys are dropped (models add chatter); the input object is kept as
// written, because the tool's own strict schema judges it.
const decisionFields = z
  .object({
    thought: z.string().optional(),
    action: nonBlank.optional(),
    input: inputObject.optional(),
    action_input: inputObject.optional(), // the seed articles' spelling, accepted as `input`
    final: nonBlank.optional(),
    ask: nonBlank.optional(),
  })
  .transform((fields, ctx): Decision => {
    const thought = fields.thought ?? '';
    const present = (['action', 'final', 'ask'] as const).filter((key) => fields[key] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          present.length === 0
            ? 'one of "action", "final" or "ask" is required'
            : `exactly one of "action", "final" or "ask" is allowed, got ${present.join(', ')}`,
      });
      return z.NEVER;
    }
    if (fields.input !== undefined && fields.action_input !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'give "input" or "action_input", not both' });
      return z.NEVER;
    }
    if (fields.action !== undefined) {
      const input = fields.input ?? fields.action_input ?? {};
      return { kind: 'action', thought, action: fields.action.trim(), input };
    }
    if (fields.final !== undefined) return { kind: 'final', thought, final: fields.final };
    return { kind: 'ask', thought, ask: fields.ask ?? '' };
  });

export const decisionSchema: z.ZodType<Decision> = decisionFields;

export type DecisionParse = StructuredParse<Decision>;

/**
 * The one place model output becomes a `Decision`. Total: never throws; `raw` is always kept;
 * `via` says whether the JSON was clean, extracted from prose/fences, or repaired once.
 */
export function parseDecision(raw: string, limits?: ParseLimits): DecisionParse {
  return parseStructured(raw, decisionSchema, limits);
}
