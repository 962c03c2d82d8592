import type { ModelResult } from 'reins';

/**
 * The `data:` payloads of a server-sent event stream, as they complete. Handles CRLF, comment
 * lines, multi-line data and events split across chunks. Stops at `[DONE]` (OpenAI's end mark).
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.search(/\r?\n/);
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(buffer[newline] === '\r' ? newline + 2 : newline + 1);
      if (line === '') {
        if (data.length > 0) {
          const payload = data.join('\n');
          data = [];
          if (payload === '[DONE]') return;
          yield payload;
        }
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
      newline = buffer.search(/\r?\n/);
    }
  }
  if (data.length > 0 && data.join('\n') !== '[DONE]') yield data.join('\n');
}

/** The failure a model returns for a stream it cannot read. */
export const MALFORMED_STREAM: ModelResult = {
  ok: false,
  error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed stream event' },
};

/** What `sseJson` yields for a payload that is not JSON. */
export const MALFORMED = Symbol('malformed event');

/** The JSON payloads of an SSE stream, parsed; `MALFORMED` for one that is not JSON. */
export async function* sseJson(body: AsyncIterable<Uint8Array>): AsyncGenerator<unknown, void, undefined> {
  for await (const data of sseData(body)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      parsed = MALFORMED;
    }
    yield parsed;
  }
}
