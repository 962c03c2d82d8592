/**
 * What core needs of a user's zod schema, read from the schema itself so that
 * `import('reins')` does not load zod (see `lazy-zod.ts`).
 */
import type { z } from 'zod';
import { zodNow } from './lazy-zod.js';

/**
 * `schema instanceof z.ZodObject`, without zod: zod 4's `instanceof` is this very trait check
 * (`Symbol.hasInstance` on its classes), so schemas of another zod copy answer alike.
 */
export function isZodObject(schema: z.ZodType): schema is z.ZodObject {
  return schema._zod.traits.has('ZodObject');
}

/**
 * `z.toJSONSchema(schema, { io: 'input' })` without its `$schema` dialect key. Classic zod
 * schemas carry the generator as a method (the same output); a schema without it (zod/mini,
 * an older zod) needs zod's own function, so zod must be loaded by then.
 */
export function inputJsonSchema(schema: z.ZodType, what: string): Record<string, unknown> {
  const generate = (schema as { toJSONSchema?: z.ZodType['toJSONSchema'] }).toJSONSchema;
  const json =
    typeof generate === 'function'
      ? generate.call(schema, { io: 'input' })
      : zodNow()?.toJSONSchema(schema, { io: 'input' });
  if (json === undefined) {
    throw new TypeError(
      `${what}: the schema has no toJSONSchema() method (zod/mini, or an older zod): await loadLazyParts() first, so reins can use zod's own`,
    );
  }
  const { $schema: _dialect, ...rest } = json as Record<string, unknown>;
  return rest;
}
