import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * A tool's zod schema as `tools/list` shows it (JSON Schema 2020-12, from zod), with the
 * SDK's own validation turned into a pass-through: the SDK would answer a bad argument with
 * a free-text error, while ours goes through `executeAction` (strict keys, sizes) and comes
 * back as `INVALID_PARAMETER` data. Output is checked there too, before PII masking — the
 * SDK must not re-check a masked value against the raw schema.
 */
export function advertisedOnly(schema: z.ZodType): StandardSchemaWithJSON<unknown, unknown> {
  const standard = schema['~standard'];
  return {
    '~standard': { ...standard, validate: (value: unknown) => ({ value }) },
  } as StandardSchemaWithJSON<unknown, unknown>;
}

/** Does the schema describe a JSON object (what MCP requires of input and output schemas)? */
export function isObjectSchema(schema: z.ZodType, io: 'input' | 'output'): boolean {
  try {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as { type?: unknown };
    return json.type === 'object';
  } catch {
    return false;
  }
}
