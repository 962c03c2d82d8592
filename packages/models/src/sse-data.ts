import type { ModelResult } from 'reins';

/**
 * The `data:` payloads of a server-sent event stream, as they complete. Handles LF, CRLF and
 * CR line ends, comment lines, multi-line data and events split across chunks. Yields
 * OpenAI's end mark `[DONE]` like any payload, then stops.
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const lines = async function* (): AsyncGenerator<string, void, undefined> {
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      let end = buffer.search(/\r\n|\n|\r(?=.)/s);
      while (end !== -1) {
        yield buffer.slice(0, end);
        buffer = buffer.slice(buffer.startsWith('\r\n', end) ? end + 2 : end + 1);
        end = buffer.search(/\r\n|\n|\r(?=.)/s);
      }
    }
    buffer += decoder.decode();
    for (const line of buffer.split(/\r\n|\n|\r/)) yield line;
    yield ''; // the stream's end closes a last event without its blank line
  };
  for await (const line of lines()) {
    if (line === '') {
      if (data.length === 0) continue;
      const payload = data.join('\n');
      data = [];
      yield payload;
      if (payload === '[DONE]') return;
    } else if (line.startsWith('data:')) {
      data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }
}

/** The failure a model returns for a stream it cannot read. */
export const MALFORMED_STREAM: ModelResult = {
  ok: false,
  error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed stream event' },
};

/** What `sseJson` yields for a payload that is not JSON. */
export const MALFORMED = Symbol('malformed event');
/** What `sseJson` yields for OpenAI's end mark `[DONE]`. */
export const DONE = Symbol('done');

/** A stream that ended without its end mark: cut off, not complete. */
export const TRUNCATED_STREAM: ModelResult = {
  ok: false,
  error: { code: 'SERVICE_UNAVAILABLE', message: 'the stream ended before its end mark (truncated)' },
};

/** The JSON payloads of an SSE stream, parsed; `MALFORMED` for one that is not JSON. */
export async function* sseJson(body: AsyncIterable<Uint8Array>): AsyncGenerator<unknown, void, undefined> {
  for await (const data of sseData(body)) {
    if (data === '[DONE]') {
      yield DONE;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      parsed = MALFORMED;
    }
    yield parsed;
  }
}
