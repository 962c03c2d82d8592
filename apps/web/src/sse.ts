import { obj, type WireEvent } from './run-events.js';

/** Parses an SSE body: frames separated by a blank line; `data:` lines joined; comments skipped. */
export async function readSse(body: ReadableStream<Uint8Array>, onEvent: (event: WireEvent) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = frameEnd(buffer)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^(\r?\n){2}/, '');
      const event = parseFrame(frame);
      if (event !== undefined) onEvent(event);
    }
  }
  const last = parseFrame(buffer);
  if (last !== undefined) onEvent(last);
}

function frameEnd(buffer: string): number {
  const a = buffer.indexOf('\n\n');
  const b = buffer.indexOf('\r\n\r\n');
  if (a < 0) return b;
  if (b < 0) return a;
  return Math.min(a, b);
}

export function parseFrame(frame: string): WireEvent | undefined {
  let type = 'message';
  const data: string[] = [];
  for (const line of frame.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    const parsed = obj(JSON.parse(data.join('\n')));
    if (parsed === undefined) return undefined;
    return { ...parsed, type: typeof parsed['type'] === 'string' ? parsed['type'] : type } as WireEvent;
  } catch {
    return undefined;
  }
}
