import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { defineTool, type AnyTool, type ToolContext } from 'reins';
import { z } from 'zod';
import { inputSchemaToZod, outputSchemaToZod } from './json-schema.js';
import { untrustedText } from './untrusted-text.js';

/** One imported tool as the bridge calls it. */
export interface ToolEntry {
  readonly mcpName: string;
  readonly reinsName: string;
  readonly fingerprint: string;
  readonly readOnly: boolean;
  /** The approved definition's name and input schema (SEP-2243 `Mcp-Param-*` headers come from it). */
  readonly headerSource: Pick<McpTool, 'name' | 'inputSchema'>;
}

export type CallTool = (entry: ToolEntry, input: unknown, ctx: ToolContext) => Promise<unknown>;

export interface ImportOptions {
  readonly server: string;
  readonly prefix: string;
  readonly toolTimeoutMs: number;
  readonly maxDescriptionLength: number;
  readonly maxBase64Bytes: number;
  /**
   * Is the server up (its `tools/list` answers)? Every imported tool's breaker runs it as its
   * half-open probe once its open period ends, so a breaker closes when the server is back.
   */
  readonly probe?: () => Promise<boolean>;
}

export type Imported =
  { readonly ok: true; readonly tool: AnyTool } | { readonly ok: false; readonly reason: string };

/** What the result of a tool without an output schema may be: its text, or its structured content. */
const ANY_OUTPUT = z.union([z.string(), z.record(z.string(), z.unknown())]);

/** The Reins name of an MCP tool: prefixed, characters Reins does not allow become `_`. */
export function reinsName(prefix: string, mcpName: string): string {
  return `${prefix}${mcpName.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * An MCP tool definition as a Reins tool: untrusted description cleaned and capped, input
 * schema converted strictly (unknown keys refused, base64 bounded), output schema kept,
 * `readOnly` from `annotations.readOnlyHint` (absent → false), `version` and `lastUpdated` from
 * `meta` (see `ToolCatalog.definitions`). A definition that cannot be
 * converted faithfully is not imported: the reason is reported instead.
 */
export function importTool(
  definition: McpTool,
  fingerprint: string,
  options: ImportOptions,
  call: CallTool,
  meta: { readonly version?: string; readonly lastUpdated?: string } = {},
): Imported {
  const name = reinsName(options.prefix, definition.name);
  let input: z.ZodType;
  let output: z.ZodType;
  try {
    input = inputSchemaToZod(definition.inputSchema, options);
    output = definition.outputSchema === undefined ? ANY_OUTPUT : outputSchemaToZod(definition.outputSchema);
  } catch (thrown) {
    return {
      ok: false,
      reason: `schema not convertible: ${thrown instanceof Error ? thrown.message : thrown}`,
    };
  }
  const entry: ToolEntry = {
    mcpName: definition.name,
    reinsName: name,
    fingerprint,
    readOnly: definition.annotations?.readOnlyHint === true,
    headerSource: { name: definition.name, inputSchema: definition.inputSchema },
  };
  const description =
    untrustedText(definition.description ?? definition.title ?? '', options.maxDescriptionLength) ||
    `${definition.name} (from MCP server ${options.server})`;
  try {
    const tool = defineTool({
      name,
      description,
      input,
      output,
      readOnly: entry.readOnly,
      // The server's version (or the tool's `_meta.version`) and when this definition was first seen.
      ...(meta.version === undefined || !/^\S{1,64}$/.test(meta.version) ? {} : { version: meta.version }),
      ...(meta.lastUpdated === undefined ? {} : { lastUpdated: meta.lastUpdated }),
      timeoutMs: options.toolTimeoutMs,
      ...(options.probe === undefined ? {} : { policy: { breaker: { probe: options.probe } } }),
      run: (value, ctx) => call(entry, value, ctx) as Promise<z.input<typeof output>>,
    });
    return { ok: true, tool };
  } catch (thrown) {
    return { ok: false, reason: thrown instanceof Error ? thrown.message : String(thrown) };
  }
}
