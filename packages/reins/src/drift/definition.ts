import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { needsApproval, type AnyTool } from '../tool.js';
import { canonicalJson } from '../util/canonical-json.js';
import { zodNow } from '../util/lazy-zod.js';

/**
 * One tool definition as it is approved and checked (`tools.approved.json`, `reins tools
 * check`): what the model is shown of the tool and what the runtime does by its flags.
 */
export interface ToolDefinitionSnapshot {
  /** The tool's name as the model sees it. */
  readonly name: string;
  /** Where it comes from: `app` (declared in code) or `mcp:<server>` (imported from an MCP server). */
  readonly source: string;
  readonly version: string | null;
  /** When the definition last changed (ISO 8601); an MCP tool's: when this definition was first seen. Not compared. */
  readonly lastUpdated: string | null;
  readonly description: string;
  /** The input's JSON Schema (an MCP tool's: as the server lists it). */
  readonly input: unknown;
  /** The output's JSON Schema; `null` for an MCP tool without one. */
  readonly output: unknown;
  readonly readOnly: boolean;
  readonly needsApproval: boolean;
  readonly idempotent: boolean;
  /** MCP tools: the server's annotations as listed (`null` when none). */
  readonly annotations?: unknown;
  /** `sha256:<hex>` of the canonical JSON of every field but `lastUpdated` and itself. */
  readonly fingerprint: string;
}

/** The fields a definition is compared by (`lastUpdated` is informative only). */
export const COMPARED_FIELDS = [
  'source',
  'version',
  'description',
  'input',
  'output',
  'readOnly',
  'needsApproval',
  'idempotent',
  'annotations',
] as const;

export type ComparedField = (typeof COMPARED_FIELDS)[number];

/** Adds the fingerprint to a definition's fields (an MCP bridge builds its tools' this way). */
export function definitionSnapshot(
  fields: Omit<ToolDefinitionSnapshot, 'fingerprint'>,
): ToolDefinitionSnapshot {
  const pinned: Record<string, unknown> = { name: fields.name };
  for (const field of COMPARED_FIELDS) pinned[field] = fields[field] ?? null;
  const fingerprint = `sha256:${createHash('sha256').update(canonicalJson(pinned)).digest('hex')}`;
  return { ...fields, fingerprint };
}

/** A tool declared in code (`defineTool`) as a definition snapshot. */
export function toolDefinition(tool: AnyTool, source = 'app'): ToolDefinitionSnapshot {
  return definitionSnapshot({
    name: tool.name,
    source,
    version: tool.version ?? null,
    lastUpdated: tool.lastUpdated ?? null,
    description: tool.description,
    input: jsonSchema(tool.input, 'input'),
    output: jsonSchema(tool.output, 'output'),
    readOnly: tool.readOnly,
    needsApproval: needsApproval(tool),
    idempotent: tool.idempotent === true,
  });
}

/**
 * The schema's JSON Schema as zod writes it (parts it cannot express, e.g. a transform, become
 * `{}`); a schema it cannot convert at all is recorded by the reason, so a change still shows.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  const options = { io, unrepresentable: 'any' } as const;
  try {
    const generate = (schema as { toJSONSchema?: z.ZodType['toJSONSchema'] }).toJSONSchema;
    const json =
      typeof generate === 'function'
        ? generate.call(schema, options)
        : zodNow()?.toJSONSchema(schema, options);
    if (json === undefined) return { unconvertible: 'the schema has no toJSONSchema() method' };
    const { $schema: _dialect, ...rest } = json as Record<string, unknown>;
    return rest;
  } catch (thrown) {
    return { unconvertible: thrown instanceof Error ? thrown.message : String(thrown) };
  }
}
