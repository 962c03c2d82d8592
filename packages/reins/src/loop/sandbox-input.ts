import {
  boundsStrings,
  defineOwn,
  isPlainObject,
  isRecord,
  sandboxInput,
  strayKeys,
  type Issue,
} from './validate-io.js';

/** What one property of an object schema allows, for the one-pass sandbox. */
interface PropertyPlan {
  readonly schema: unknown;
  /** The property's schema sets a `maxLength` for strings (`boundsStrings`). */
  readonly bounded: boolean;
}

/** An object schema with `properties` (no union at its top), read once per schema. */
interface ObjectPlan {
  readonly properties: ReadonlyMap<string, PropertyPlan>;
  /** `additionalProperties`: undefined or false refuse other keys, anything else is their schema. */
  readonly extra: unknown;
}

const PLANS = new WeakMap<object, ObjectPlan | null>();

function planFor(schema: unknown): ObjectPlan | null {
  if (!isRecord(schema)) return null;
  let plan = PLANS.get(schema);
  if (plan !== undefined) return plan;
  plan = null;
  const properties = schema.properties;
  if (isRecord(properties) && schema.anyOf === undefined && schema.oneOf === undefined) {
    const byKey = new Map<string, PropertyPlan>();
    for (const key of Object.keys(properties)) {
      const property = properties[key];
      if (!isRecord(property)) {
        PLANS.set(schema, null); // not from JSON: the general walk judges it
        return null;
      }
      byKey.set(key, { schema: property, bounded: boundsStrings(property, schema) });
    }
    plan = { properties: byKey, extra: schema.additionalProperties };
  }
  PLANS.set(schema, plan);
  return plan;
}

/**
 * `sandboxInput` of a tool's input and, on the copy, the keys its JSON Schema does not name
 * (`strayKeys`, into `stray`) — in one pass over a plain object whose schema is an object
 * schema (the usual tool input: each top-level property's schema is read once per schema,
 * not once per call), else the two in turn. Same copy, same issues, same stray paths. The keys
 * are judged on the sandboxed copy before the tool's schema runs (a transform of the schema's
 * that drops a key does not make a model-invented key acceptable).
 */
export function sandboxWithStrayKeys(
  value: unknown,
  schema: unknown,
  cap: number,
  issues: Issue[],
  stray: string[],
): unknown {
  const plan =
    typeof value === 'object' && value !== null && !Array.isArray(value) && isPlainObject(value)
      ? planFor(schema)
      : null;
  if (plan === null) {
    const given = sandboxInput(value, schema, cap, issues);
    strayKeys(given, schema, '', stray, schema);
    return given;
  }
  // Copied whole by a spread (one step, where a store per key went through `defineOwn`); what
  // the sandbox changes (a trimmed string, a nested copy) is written over it. The spread read
  // each value once (a getter is not called again below), and keeps a `__proto__` key an own key.
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in copy) {
    const item = copy[key];
    const known = plan.properties.get(key);
    let safe: unknown;
    if (known !== undefined && typeof item === 'string') {
      safe = item.trim();
      if (!known.bounded && (safe as string).length > cap) {
        issues.push({
          path: key || '(root)',
          message: `too long: ${(safe as string).length} characters, at most ${cap} for a string without its own limit`,
        });
      }
    } else if (known !== undefined && (typeof item !== 'object' || item === null)) {
      safe = item;
    } else {
      const itemSchema = known === undefined ? plan.extra : known.schema;
      safe = sandboxInput(item, itemSchema, cap, issues, key, schema);
      if (known === undefined && (plan.extra === undefined || plan.extra === false)) stray.push(key);
      else strayKeys(safe, itemSchema, key, stray, schema);
    }
    if (safe !== item) defineOwn(copy, key, safe);
  }
  return copy;
}
