import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { Observation } from 'reins';

/** Turns a tool's checked result into MCP content blocks (e.g. an image); the default is JSON text. */
export type PresentResult = (result: unknown) => ContentBlock[];

/**
 * An observation as an MCP tool result. Success: the result as text (a string as it is,
 * anything else as JSON) and, for a tool that advertises an output schema, as
 * `structuredContent`. Failure: `isError` with `{"error":{"code","message"}}` as the text —
 * the code is data a client can act on (our client bridge reads it back as the same code).
 */
export function observationResult(
  observation: Observation,
  options: { readonly structured: boolean; readonly present?: PresentResult | undefined },
): CallToolResult {
  if (observation.status !== 'ok') {
    const code = observation.error?.code ?? 'INTERNAL';
    const message = observation.error?.message ?? `${observation.tool} failed (${observation.status})`;
    return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message } }) }], isError: true };
  }
  const result = observation.result;
  const content: ContentBlock[] = options.present?.(result) ?? [
    { type: 'text', text: typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null') },
  ];
  if (options.structured && isRecord(result)) return { content, structuredContent: result };
  return { content };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
