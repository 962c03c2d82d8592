import { z } from 'zod';
import { localRefTarget } from 'reins';

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
      for (const [found, at] of stringsAt(value, path)) {
        // A branch not taken may put a plain string at the same path: only base64 text counts.
        if (BASE64.test(found) && decodedBytes(found) > options.maxBase64Bytes) {
          ctx.addIssue({
            code: 'custom',
            path: at,
            message: `more than ${options.maxBase64Bytes} bytes of base64 data`,
          });
        }
      }
    }
  });
}

/** A path segment that stands for every element of an array. */
const EACH = Symbol('each element');
type Segment = string | number | typeof EACH;

/**
 * Paths to base64 strings: through `properties`, array items (`items`, a tuple's `items` /
 * `prefixItems`, `additionalItems`), `anyOf` / `oneOf` / `allOf` branches and local `$ref`s
 * (`#/$defs/…`, `#/definitions/…`; each followed once per path, so a recursive schema ends).
 */
function base64Paths(
  schema: unknown,
  root: unknown = schema,
  path: Segment[] = [],
  out: Segment[][] = [],
  following: ReadonlySet<string> = new Set(),
): Segment[][] {
  if (!isRecord(schema) || path.length > 32) return out;
  if (isBase64(schema)) out.push(path);
  const ref = schema.$ref;
  if (typeof ref === 'string' && !following.has(ref)) {
    base64Paths(localRefTarget(root, ref), root, path, out, new Set([...following, ref]));
  }
  const go = (sub: unknown, segment?: Segment): void => {
    base64Paths(sub, root, segment === undefined ? path : [...path, segment], out, following);
  };
  if (isRecord(schema.properties)) for (const [key, sub] of Object.entries(schema.properties)) go(sub, key);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const sub of list) go(sub);
  }
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  tuple.forEach((sub: unknown, i: number) => go(sub, i));
  if (isRecord(schema.items)) go(schema.items, EACH);
  if (isRecord(schema.additionalItems)) go(schema.additionalItems, EACH);
  return out;
}

/** Every string at `path` in `value` (an `EACH` segment: every element), with its concrete path. */
function stringsAt(
  value: unknown,
  path: readonly Segment[],
  at: (string | number)[] = [],
): [string, (string | number)[]][] {
  if (path.length === 0) return typeof value === 'string' ? [[value, at]] : [];
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (head === EACH) {
    return Array.isArray(value) ? value.flatMap((item, i) => stringsAt(item, rest, [...at, i])) : [];
  }
  if (typeof head === 'number')
    return Array.isArray(value) ? stringsAt(value[head], rest, [...at, head]) : [];
  return isRecord(value) && Object.hasOwn(value, head) ? stringsAt(value[head], rest, [...at, head]) : [];
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
const BRANCH_LISTS = ['anyOf', 'oneOf', 'allOf'] as const;
// `items` may be one schema or (draft-07 tuples) a list of them.
const SUBSCHEMAS = ['items', 'additionalItems', 'not', 'if', 'then', 'else', 'contains'] as const;
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties'] as const;

function tighten(schema: unknown, options: SchemaOptions, depth = 0, closeObject = true): unknown {
  if (depth > 64) throw new TypeError('schema nests deeper than 64 levels');
  if (!isRecord(schema)) return schema;
  const out: Json = { ...(depth === 0 ? (withoutDialect(schema) as Json) : schema) };
  const next = (s: unknown): unknown => tighten(s, options, depth + 1);
  // An object with branches (`properties` and an `anyOf` of `required` alternatives, …): zod
  // makes it an intersection, which keeps no object strict. Rewritten as whole objects it does.
  if (closeObject && (isObjectSchema(out) || objectsAllOf(out))) {
    const whole = wholeObjects(out);
    if (whole !== undefined) return tighten(whole, options, depth + 1, closeObject);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    // allOf members each see only part of the object: closing one would refuse the others' keys.
    if (Array.isArray(list)) out[key] = list.map((s) => tighten(s, options, depth + 1, key !== 'allOf'));
  }
  for (const key of SUBSCHEMAS) {
    if (!(key in out)) continue;
    const sub = out[key];
    out[key] = Array.isArray(sub) ? sub.map(next) : next(sub);
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (isRecord(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, next(v)]));
  }
  if (isRecord(out.additionalProperties)) out.additionalProperties = next(out.additionalProperties);
  // Branch keywords decide for themselves; a bare composition node has no keys of its own.
  const composes = SUBSCHEMA_LISTS.some((key) => key in out);
  if (closeObject && isObjectSchema(out) && !composes && out.additionalProperties === undefined)
    out.additionalProperties = false;
  if (isBase64(out)) {
    const bound = base64Length(options.maxBase64Bytes);
    out.maxLength = typeof out.maxLength === 'number' ? Math.min(out.maxLength, bound) : bound;
    if (out.pattern === undefined) out.pattern = BASE64.source;
  }
  return out;
}

function isObjectSchema(schema: Json): boolean {
  return schema.type === 'object' || isRecord(schema.properties);
}

// What a branch may say to be merged into its object: names and their schemas, nothing else.
const MERGEABLE = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'title',
  'description',
  '$comment',
]);

/**
 * An object schema with branches as whole objects: `allOf` members merged into it, then one
 * whole object per `anyOf` / `oneOf` alternative (its names and the object's), which zod keeps
 * strict (`{properties, anyOf: [{required: [a]}, {required: [b]}]}` → `{anyOf: [{properties,
 * required: [a]}, {properties, required: [b]}]}`). `undefined` when there is nothing to rewrite,
 * or it cannot be done safely: the node says itself what other keys may be, has both `anyOf`
 * and `oneOf`, or a branch says more than names (a `$ref`, nested branches, conditions …).
 */
function wholeObjects(node: Json): Json | undefined {
  const lists = BRANCH_LISTS.filter((key) => key in node);
  if (lists.length === 0 || ('anyOf' in node && 'oneOf' in node)) return undefined;
  if (node.additionalProperties !== undefined || 'patternProperties' in node) return undefined;
  for (const key of lists) {
    const list = node[key];
    if (!Array.isArray(list) || list.length === 0 || !list.every(mergeable)) return undefined;
  }
  // Definitions stay where references resolve from: the node itself.
  const { anyOf, oneOf, allOf, $defs, definitions, ...rest } = node;
  const kept: Json = { $defs, definitions };
  let base: Json = { ...rest, type: 'object' };
  for (const member of (allOf ?? []) as Json[]) base = merged(base, member);
  const alternatives = (anyOf ?? oneOf) as Json[] | undefined;
  if (alternatives === undefined) return withDefined({ ...base, ...kept });
  const { title, description, $comment } = base;
  const outer: Json = { title, description, $comment, ...kept };
  outer[anyOf === undefined ? 'oneOf' : 'anyOf'] = alternatives.map((branch) => merged(base, branch));
  return withDefined(outer);
}

/** `json` without its undefined keys. */
function withDefined(json: Json): Json {
  return Object.fromEntries(Object.entries(json).filter(([, value]) => value !== undefined));
}

/** A bare `allOf` of object schemas (`{allOf: [{type: 'object', properties: …}, …]}`). */
function objectsAllOf(node: Json): boolean {
  const members = node.allOf;
  return Array.isArray(members) && members.some((m) => isRecord(m) && isObjectSchema(m));
}

function mergeable(branch: unknown): branch is Json {
  if (!isRecord(branch) || !Object.keys(branch).every((key) => MERGEABLE.has(key))) return false;
  if (branch.type !== undefined && branch.type !== 'object') return false;
  if (branch.additionalProperties !== undefined && branch.additionalProperties !== false) return false;
  if (branch.properties !== undefined && !isRecord(branch.properties)) return false;
  return branch.required === undefined || isNameList(branch.required);
}

/** `base` with `branch`'s names: a name both declare must pass both schemas. */
function merged(base: Json, branch: Json): Json {
  const properties: Json = isRecord(base.properties) ? { ...base.properties } : {};
  for (const [name, schema] of Object.entries(isRecord(branch.properties) ? branch.properties : {})) {
    const mine = properties[name];
    properties[name] = mine === undefined || mine === schema ? schema : { allOf: [mine, schema] };
  }
  const required = [
    ...new Set([
      ...(isNameList(base.required) ? base.required : []),
      ...(isNameList(branch.required) ? branch.required : []),
    ]),
  ];
  const out: Json = { ...base, type: 'object', properties };
  if (required.length > 0) out.required = required;
  if (branch.additionalProperties === false) out.additionalProperties = false;
  return out;
}

function isNameList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((name) => typeof name === 'string');
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
