import type { CallToolResult, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { LookupError } from '../service/results.js';

/** A successful call: the structured result, and the same as JSON text for clients that read only text. */
export function okResult(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A failed call is data: `isError` with `{"error":{"code","message"}}` as its text. */
export function errorResult(error: LookupError): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true };
}

/** Validates input ourselves so a bad argument comes back as `INVALID_PARAMETER` data. */
export function parseInput<T>(
  schema: z.ZodType<T>,
  args: unknown,
): { ok: true; value: T } | { ok: false; result: CallToolResult } {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    result: errorResult({ code: 'INVALID_PARAMETER', message: z.prettifyError(parsed.error) }),
  };
}

/**
 * The schema as `tools/list` advertises it, with the SDK's own validation turned into a
 * pass-through: the SDK would answer a bad argument with a free-text error, and errors
 * that cross our boundary carry a code. The handler validates with the same schema.
 */
export function advertisedOnly(schema: z.ZodType): StandardSchemaWithJSON<unknown, unknown> {
  const standard = schema['~standard'];
  return {
    '~standard': {
      ...standard,
      validate: (value: unknown) => ({ value }),
    },
  } as StandardSchemaWithJSON<unknown, unknown>;
}
