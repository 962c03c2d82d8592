import { createHash } from 'node:crypto';
import { canonicalJson } from 'reins';

/** The parts of an MCP tool definition a pin covers. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  /** Covered only when the server sends one (a tool without keeps the fingerprint it had before). */
  readonly title?: string | undefined;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/**
 * `sha256:<hex>` of the canonical JSON (keys sorted) of name, description, title (when sent),
 * input and output schema and annotations — as the server sent them, before any sanitizing, so
 * that a change hidden in stripped characters still counts as a change. The title is what the
 * model reads when there is no description, so a change to it is a change to the tool.
 */
export function fingerprint(tool: ToolDefinition): string {
  const pinned = {
    name: tool.name,
    description: tool.description ?? null,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
  return `sha256:${createHash('sha256').update(canonicalJson(pinned)).digest('hex')}`;
}
