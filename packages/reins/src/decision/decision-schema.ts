import type { z } from 'zod';
import { lazyZodSchema } from '../util/lazy-schema.js';
import { whenZodLoaded, type Zod } from '../util/lazy-zod.js';
import { validateDecision, type Decision } from './decision.js';

let built: z.ZodType<Decision> | undefined;

function buildDecisionSchema({ z }: Zod): z.ZodType<Decision> {
  built ??= z.record(z.string(), z.unknown()).transform((value, ctx) => {
    const checked = validateDecision(value);
    if (checked.ok) return checked.value;
    ctx.addIssue({ code: 'custom', message: checked.message });
    return z.NEVER;
  });
  return built;
}

/**
 * The same rules as a zod schema, for callers composing schemas (one source: `validateDecision`).
 * Built from reins' lazily loaded zod: usable once a run has started or after `await
 * loadLazyParts()`. From then on this binding is the zod schema itself; before, it is a
 * stand-in that forwards to it (and throws, saying so, while zod is not loaded).
 */
export let decisionSchema: z.ZodType<Decision> = lazyZodSchema('decisionSchema', buildDecisionSchema);
whenZodLoaded((zod) => {
  decisionSchema = buildDecisionSchema(zod);
});
