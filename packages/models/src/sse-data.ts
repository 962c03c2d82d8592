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
