export interface SseMessage {
  readonly event?: string;
  readonly id?: string;
  readonly retry?: number;
  /** One line (JSON.stringify output); a line break would start a second `data:` line. */
  readonly data: string;
}

/**
 * One SSE frame, byte for byte what hono's `writeSSE` writes: `event:`, one `data:` line per
 * line of `data`, `id:`, `retry:`, then a blank line. An `event` or `id` with a line break is
 * a programmer mistake (it would start another field): it throws, as hono's does.
 */
export function sseFrame(message: SseMessage): string {
  for (const value of [message.event, message.id]) {
    if (value !== undefined && /[\r\n]/.test(value))
      throw new Error('SSE event and id must not contain "\\r" or "\\n"');
  }
  const data = /[\r\n]/.test(message.data)
    ? message.data
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}`)
        .join('\n')
    : `data: ${message.data}`;
  let frame = message.event === undefined || message.event === '' ? '' : `event: ${message.event}\n`;
  frame += data;
  if (message.id !== undefined) frame += `\nid: ${message.id}`;
  if (message.retry !== undefined) frame += `\nretry: ${message.retry}`;
  return `${frame}\n\n`;
}
