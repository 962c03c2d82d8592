import type { z } from 'zod';
import { KitchenError } from './errors.js';

/** The dotted path of the first issue, e.g. `ingredients.1.name`; unknown keys name the key. */
function fieldOf(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  return path.length === 0 ? '(body)' : path.join('.');
}

/**
 * Checks untrusted input against a schema; the first problem becomes `INVALID_PARAMETER`
 * naming the field. Unknown keys are refused (schemas are strict), so a `householdId`
 * smuggled into a body is an error, never an authorization input.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw new KitchenError('INVALID_PARAMETER', 'invalid input');
  const field = fieldOf(issue);
  const message =
    issue.code === 'unrecognized_keys' ? `unknown field: ${field}` : `${field}: ${issue.message}`;
  throw new KitchenError('INVALID_PARAMETER', message, field);
}
