import type { AnyTool } from '../tool.js';
import { compareToolDefinitions, type ToolDriftReport, type UncheckedSource } from './compare.js';
import { toolDefinition, type ToolDefinitionSnapshot } from './definition.js';

/**
 * Definitions that come from elsewhere than code, read afresh on every check: an MCP server's
 * tools (`McpBridge` is one; it re-lists them). `toolDefinitions` rejects when they cannot be
 * read now (the server is down): the source is then reported unchecked.
 */
export interface ToolDefinitionSource {
  /** `mcp:<server>`: the `source` of its definitions. */
  readonly source: string;
  toolDefinitions(): Promise<readonly ToolDefinitionSnapshot[]>;
}

/** What an app uses: tools declared in code, and sources of more (MCP servers). */
export interface ToolSet {
  readonly tools?: readonly AnyTool[];
  readonly sources?: readonly ToolDefinitionSource[];
}

export interface CurrentDefinitions {
  readonly definitions: ToolDefinitionSnapshot[];
  readonly unchecked: UncheckedSource[];
}

/** The definitions in use now (a name seen twice counts once: the first). */
export async function currentDefinitions(set: ToolSet): Promise<CurrentDefinitions> {
  const byName = new Map<string, ToolDefinitionSnapshot>();
  for (const tool of set.tools ?? []) if (!byName.has(tool.name)) byName.set(tool.name, toolDefinition(tool));
  const unchecked: UncheckedSource[] = [];
  const listed = await Promise.all(
    (set.sources ?? []).map(async (s) => {
      try {
        return await s.toolDefinitions();
      } catch (thrown) {
        unchecked.push({
          source: s.source,
          reason: thrown instanceof Error ? thrown.message : String(thrown),
        });
        return [];
      }
    }),
  );
  for (const d of listed.flat()) if (!byName.has(d.name)) byName.set(d.name, d);
  return { definitions: [...byName.values()], unchecked };
}

/** Compares the definitions in use with `approved` (see `compareToolDefinitions`). */
export async function checkToolDrift(
  set: ToolSet,
  approved: readonly ToolDefinitionSnapshot[],
): Promise<ToolDriftReport> {
  const { definitions, unchecked } = await currentDefinitions(set);
  return compareToolDefinitions(approved, definitions, unchecked);
}
