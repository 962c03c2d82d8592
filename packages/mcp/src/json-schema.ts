import { z } from 'zod';

type Json = Record<string, unknown>;

export interface SchemaOptions {
  /** Upper bound for a base64 string property (`contentEncoding: base64`, `format: byte`). */
  readonly maxBase64Bytes: number;
}

/** A base64 string of at most `maxBytes` decoded bytes: oversize or non-base64 input is refused. */
export function base64String(maxBytes: number): z.ZodString {
  return z
    .string()
    .max(base64Length(maxBytes))
    .regex(BASE64)
    .refine((s) => decodedBytes(s) <= maxBytes, `more than ${maxBytes} bytes of base64 data`);
}

/** Bytes a base64 string decodes to. */
export function decodedBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function base64Length(maxBytes: number): number {
  return Math.ceil(maxBytes / 3) * 4;
}

/**
 * An MCP tool's input JSON Schema as a strict zod schema: every object schema that does not
 * say otherwise gets `additionalProperties: false` (JSON Schema's default is "anything goes",
 * the Reins contract is "unknown keys are refused"), and base64 strings get a length bound
 * and an alphabet check. Throws when the schema uses something zod cannot express — the
 * caller then leaves the tool out rather than accept unchecked input.
 */
export function inputSchemaToZod(schema: unknown, options: SchemaOptions): z.ZodType {
  const converted = z.fromJSONSchema(tighten(schema, options) as Parameters<typeof z.fromJSONSchema>[0]);
  const paths = base64Paths(schema);
  if (paths.length === 0) return converted;
  // maxLength bounds the text (and tells the model); the exact decoded size is checked here.
  return converted.superRefine((value, ctx) => {
    for (const path of paths) {
      const found = path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);
      if (typeof found === 'string' && decodedBytes(found) > options.maxBase64Bytes) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `more than ${options.maxBase64Bytes} bytes of base64 data`,
        });
      }
    }
  });
}

/** Paths (through `properties` only) to base64 string properties. */
function base64Paths(schema: unknown, path: string[] = [], out: string[][] = []): string[][] {
  if (!isRecord(schema) || path.length > 32) return out;
  if (isBase64(schema)) out.push(path);
  if (isRecord(schema.properties)) {
    for (const [key, sub] of Object.entries(schema.properties)) base64Paths(sub, [...path, key], out);
  }
  return out;
}

/** An output schema as zod, as declared (extra keys in a result do no harm). */
export function outputSchemaToZod(schema: unknown): z.ZodType {
  return z.fromJSONSchema(withoutDialect(schema) as Parameters<typeof z.fromJSONSchema>[0]);
}

function withoutDialect(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMAS = ['items', 'not', 'if', 'then', 'else', 'contains'] as const;
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties'] as const;

function tighten(schema: unknown, options: SchemaOptions, depth = 0, closeObject = true): unknown {
  if (depth > 64) throw new TypeError('schema nests deeper than 64 levels');
  if (!isRecord(schema)) return schema;
  const out: Json = { ...(depth === 0 ? (withoutDialect(schema) as Json) : schema) };
  const next = (s: unknown): unknown => tighten(s, options, depth + 1);
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    // allOf members each see only part of the object: closing one would refuse the others' keys.
    if (Array.isArray(list)) out[key] = list.map((s) => tighten(s, options, depth + 1, key !== 'allOf'));
  }
  for (const key of SUBSCHEMAS) if (key in out) out[key] = next(out[key]);
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (isRecord(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, next(v)]));
  }
  if (isRecord(out.additionalProperties)) out.additionalProperties = next(out.additionalProperties);
  const isObject = out.type === 'object' || isRecord(out.properties);
  // Branch keywords decide for themselves; a bare composition node has no keys of its own.
  const composes = SUBSCHEMA_LISTS.some((key) => key in out);
  if (closeObject && isObject && !composes && out.additionalProperties === undefined)
    out.additionalProperties = false;
  if (isBase64(out)) {
    const bound = base64Length(options.maxBase64Bytes);
    out.maxLength = typeof out.maxLength === 'number' ? Math.min(out.maxLength, bound) : bound;
    if (out.pattern === undefined) out.pattern = BASE64.source;
  }
  return out;
}

function isBase64(schema: Json): boolean {
  return (
    schema.type === 'string' &&
    (schema.contentEncoding === 'base64' || schema.format === 'byte' || schema.format === 'base64')
  );
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
