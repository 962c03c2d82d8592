import type { z } from 'zod';
import { describeThrown } from '../errors.js';
import { localRefTarget } from '../util/local-ref.js';

export interface Issue {
  readonly path: string;
  readonly message: string;
}

export type Checked =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: Issue[] };

/** The JSON Schema of what a tool accepts (`toolSpec(tool).inputSchema`). */
type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * `schema.safeParse` that never throws (an async refinement or a throwing transform is
 * reported as an issue) and, given the input's JSON Schema, refuses keys it does not name —
 * so a model-invented `space_id` is an error even inside a nested non-strict object, while
 * a schema that renames keys in a transform is judged by what it accepts.
 */
export function checkAgainst(schema: z.ZodType, value: unknown, refuseKeysOutside?: JsonSchema): Checked {
  let parsed;
  try {
    parsed = schema.safeParse(value);
  } catch (thrown) {
    return {
      ok: false,
      issues: [{ path: '(root)', message: `schema could not run: ${describeThrown(thrown)}` }],
    };
  }
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(root)', message: i.message })),
    };
  }
  if (refuseKeysOutside !== undefined) {
    const stray: string[] = [];
    strayKeys(value, refuseKeysOutside, '', stray);
    if (stray.length > 0) return { ok: false, issues: strayIssues(stray) };
  }
  return { ok: true, value: parsed.data };
}

/** The issues of keys a schema does not name, by path. */
export function strayIssues(paths: readonly string[]): Issue[] {
  return paths.map((path) => ({ path, message: `unknown key ${JSON.stringify(path)}` }));
}

export function describeIssues(issues: readonly Issue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

/**
 * Paths of keys in `raw` that `schema` does not name: an object schema allows its
 * `properties`, and other keys only with `additionalProperties` (passthrough, catchall,
 * records); a union allows what any one branch allows. Anything else is not judged here.
 */
export function strayKeys(
  raw: unknown,
  schema: unknown,
  path: string,
  out: string[],
  root: unknown = schema,
): void {
  schema = deref(schema, root);
  if (!isRecord(schema)) return;
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) {
    const perBranch = branches.map((branch) => {
      const stray: string[] = [];
      strayKeys(raw, branch, path, stray, root);
      return stray;
    });
    if (!perBranch.some((stray) => stray.length === 0)) out.push(...(perBranch[0] ?? []));
    return;
  }
  if (Array.isArray(raw)) {
    const items = deref(schema.items, root);
    if (isRecord(items)) raw.forEach((item, i) => strayKeys(item, items, `${path}[${i}]`, out, root));
    return;
  }
  if (!isRecord(raw)) return;
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  const extra = schema.additionalProperties;
  if (properties === undefined && extra === undefined) return; // not an object schema we can judge
  for (const key in raw) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    const known = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (known !== undefined) strayKeys(raw[key], known, keyPath, out, root);
    else if (extra === undefined || extra === false) out.push(keyPath);
    else strayKeys(raw[key], extra, keyPath, out, root);
  }
}

/**
 * The parameter sandbox for model-written input: every string is trimmed, and a string the
 * input's JSON Schema does not bound (`maxLength`) may be at most `cap` characters. Returns
 * a copy of the input (every object and array a new one, strings trimmed) and the issues:
 * the tool never holds the objects the run's log keeps as the action's input, so a tool that
 * changes its input (through a schema that passes objects on as they are, `z.any()`) changes
 * neither the evidence nor what the repeated-action guard compares later calls with.
 */
export function sandboxInput(
  value: unknown,
  schema: unknown,
  cap: number,
  issues: Issue[],
  path = '',
  root: unknown = schema,
): unknown {
  schema = deref(schema, root);
  if (typeof value === 'string') {
    const trimmed = value.trim();
    const bounded = boundsStrings(schema, root);
    if (!bounded && trimmed.length > cap) {
      issues.push({
        path: path || '(root)',
        message: `too long: ${trimmed.length} characters, at most ${cap} for a string without its own limit`,
      });
    }
    return trimmed;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (!Array.isArray(value) && !isPlainObject(value)) return value; // not from JSON: passed on as it is
  const node = isRecord(schema) ? unionView(schema, root) : undefined;
  if (Array.isArray(value)) {
    const tuple = Array.isArray(node?.prefixItems) ? (node.prefixItems as unknown[]) : undefined;
    const copy: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const itemSchema = tuple !== undefined && i < tuple.length ? tuple[i] : node?.items;
      copy.push(sandboxInput(value[i], itemSchema, cap, issues, `${path}[${i}]`, root));
    }
    return copy;
  }
  const properties = node !== undefined && isRecord(node.properties) ? node.properties : undefined;
  const extra = node?.additionalProperties;
  const copy: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const known = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : extra;
    const safe = sandboxInput(record[key], known, cap, issues, path === '' ? key : `${path}.${key}`, root);
    defineOwn(copy, key, safe);
  }
  return copy;
}

/**
 * The schema a local `$ref` (`#`, `#/$defs/…`, `#/definitions/…`) points at in `root`, followed
 * through at most 16 references; any other value is returned as it is.
 */
export function deref(schema: unknown, root: unknown): unknown {
  for (let hops = 0; hops < 16 && isRecord(schema) && typeof schema.$ref === 'string'; hops++) {
    const here = localRefTarget(root, schema.$ref);
    if (here === undefined) return schema;
    schema = here;
  }
  return schema;
}

const VIEWS = new WeakMap<object, Readonly<Record<string, unknown>>>();

/**
 * A union's branches seen as one node, for the sandbox's walk (`anyOf` / `oneOf` / `allOf`,
 * references followed): a property any branch declares has its schemas as one `anyOf`, and
 * so do array items — a value is bounded as loosely as the loosest branch that could take it
 * (the tool's own schema then decides which branch it is). A node without branches is itself.
 */
function unionView(
  node: Readonly<Record<string, unknown>>,
  root: unknown,
): Readonly<Record<string, unknown>> {
  const lists = [node.anyOf, node.oneOf, node.allOf].filter(Array.isArray) as unknown[][];
  if (lists.length === 0) return node;
  let view = VIEWS.get(node);
  if (view !== undefined) return view;
  const properties = new Map<string, unknown[]>();
  const items: unknown[] = [];
  let extra = node.additionalProperties;
  const add = (branch: unknown, depth: number): void => {
    const b = deref(branch, root);
    if (!isRecord(b) || depth > 8) return;
    if (isRecord(b.properties)) {
      for (const [key, sub] of Object.entries(b.properties)) {
        const list = properties.get(key) ?? [];
        list.push(sub);
        properties.set(key, list);
      }
    }
    if (b.items !== undefined) items.push(b.items);
    if (extra === undefined && b.additionalProperties !== undefined && b.additionalProperties !== false)
      extra = b.additionalProperties;
    for (const list of [b.anyOf, b.oneOf, b.allOf])
      if (Array.isArray(list)) for (const x of list) add(x, depth + 1);
  };
  add({ properties: node.properties, items: node.items }, 0);
  for (const list of lists) for (const branch of list) add(branch, 1);
  const one = (schemas: unknown[]): unknown => (schemas.length === 1 ? schemas[0] : { anyOf: schemas });
  view = {
    ...node,
    properties: Object.fromEntries([...properties].map(([key, schemas]) => [key, one(schemas)])),
    items: items.length === 0 ? undefined : one(items),
    additionalProperties: extra,
  };
  VIEWS.set(node, view);
  return view;
}

/** The schema (or a branch of its union / intersection) sets a `maxLength` for strings. */
export function boundsStrings(schema: unknown, root: unknown = schema, depth = 0): boolean {
  schema = deref(schema, root);
  if (!isRecord(schema) || depth > 8) return false;
  if (typeof schema.maxLength === 'number') return true;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((branch) => boundsStrings(branch, root, depth + 1)))
      return true;
  }
  return false;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A deep copy of the plain objects and arrays in `value` (anything else is passed on as it is). */
export function copyPlain(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyPlain);
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) defineOwn(copy, key, copyPlain(record[key]));
  return copy;
}

/** `copy[key] = value`, except that a key named `__proto__` stays an own key (an assignment would set the prototype). */
export function defineOwn(copy: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  else copy[key] = value;
}
