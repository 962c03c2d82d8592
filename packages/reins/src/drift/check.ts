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

export interface DriftCheckOptions {
  /**
   * How long a source may take to list its definitions before it is reported unchecked
   * (default 30 s): a server that never answers must not hold the check open.
   */
  readonly sourceTimeoutMs?: number;
}

/** The default of `DriftCheckOptions.sourceTimeoutMs`. */
export const DEFAULT_SOURCE_TIMEOUT_MS = 30_000;

/**
 * `pending`'s outcome, or a rejection saying `what` did not answer within `ms`. The timer is
 * cleared when `pending` settles first, and does not hold the process open.
 */
export function answerWithin<T>(pending: Promise<T> | T, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    (timer as { unref?: () => void }).unref?.();
  });
  return Promise.race([Promise.resolve(pending), late]).finally(() => clearTimeout(timer));
}

/** The definitions in use now (a name seen twice counts once: the first). */
export async function currentDefinitions(
  set: ToolSet,
  options: DriftCheckOptions = {},
): Promise<CurrentDefinitions> {
  const timeoutMs = options.sourceTimeoutMs ?? DEFAULT_SOURCE_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new RangeError(`sourceTimeoutMs must be a positive integer, got ${timeoutMs}`);
  const byName = new Map<string, ToolDefinitionSnapshot>();
  for (const tool of set.tools ?? []) if (!byName.has(tool.name)) byName.set(tool.name, toolDefinition(tool));
  const unchecked: UncheckedSource[] = [];
  const listed = await Promise.all(
    (set.sources ?? []).map(async (s) => {
      try {
        // A listing that throws synchronously is a failed listing too.
        const listing = Promise.resolve().then(() => s.toolDefinitions());
        return await answerWithin(listing, timeoutMs, 'its listing');
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
  options: DriftCheckOptions = {},
): Promise<ToolDriftReport> {
  const { definitions, unchecked } = await currentDefinitions(set, options);
  return compareToolDefinitions(approved, definitions, unchecked);
}
