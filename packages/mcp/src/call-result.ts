import type { CallToolResult } from '@modelcontextprotocol/client';

/**
 * The text of a tool result: text blocks joined by newlines; other blocks (images, audio,
 * resources) are named, not inlined — their bytes do not belong in a prompt.
 */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'resource_link') parts.push(`[resource link: ${block.uri}]`);
    else if (block.type === 'resource') parts.push(`[embedded resource: ${block.resource.uri}]`);
    else if (block.type === 'image' || block.type === 'audio')
      parts.push(`[${block.type}: ${block.mimeType}]`);
    else parts.push(`[${(block as { type: string }).type} content]`);
  }
  return parts.join('\n');
}

/** What the model observes: the structured content when there is some, else the text. */
export function resultOutput(result: CallToolResult): unknown {
  return result.structuredContent ?? resultText(result);
}
