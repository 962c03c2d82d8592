import { toolSpec } from '../loop/tool-catalog.js';
import { isRecord } from '../loop/validate-io.js';
import type { AnyTool } from '../tool.js';

type Json = Readonly<Record<string, unknown>>;

/**
 * A user's answer for an input field, as the field's JSON Schema type asks: `"4"` for a number
 * field is 4, `"true"` for a boolean is true, JSON text for an array or object is its value.
 * Anything else — a string field, a field not found, text that is not of the type — stays the
 * text as typed (validation then says what is wrong with it).
 */
export function typedAnswer(tool: AnyTool | undefined, field: string, answer: string): unknown {
  if (tool === undefined) return answer;
  const types = typesOf(fieldSchema(toolSpec(tool).inputSchema, field.split('.')));
  if (types.includes('string')) return answer;
  const text = answer.trim();
  if (
    (types.includes('number') || types.includes('integer')) &&
    /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)
  ) {
    return Number(text);
  }
  if (types.includes('boolean') && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (types.includes('array') || types.includes('object')) {
    try {
      const value: unknown = JSON.parse(text);
      const isArray = Array.isArray(value);
      const isObject = !isArray && value !== null && typeof value === 'object';
      if ((isArray && types.includes('array')) || (isObject && types.includes('object'))) return value;
    } catch {
      // not JSON: the text as typed
    }
  }
  return answer;
}

/** The subschema at `path` (object properties; array items by index), or `undefined`. */
function fieldSchema(schema: unknown, path: readonly string[]): Json | undefined {
  let here: unknown = schema;
  for (const key of path) {
    if (!isRecord(here)) return undefined;
    if (isRecord(here.properties) && Object.hasOwn(here.properties, key)) here = here.properties[key];
    else if (/^\d+$/.test(key) && isRecord(here.items)) here = here.items;
    else return undefined;
  }
  return isRecord(here) ? here : undefined;
}

function typesOf(schema: Json | undefined): readonly unknown[] {
  if (schema === undefined) return [];
  const type = schema.type;
  if (Array.isArray(type)) return type;
  if (type !== undefined) return [type];
  // `z.number().optional()` and friends: the type is one of the alternatives.
  const alternatives = schema.anyOf ?? schema.oneOf;
  return Array.isArray(alternatives) ? alternatives.flatMap((a) => typesOf(isRecord(a) ? a : undefined)) : [];
}
