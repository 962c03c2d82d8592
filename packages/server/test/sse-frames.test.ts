import { describe, expect, it } from 'vitest';
import { SSEStreamingApi } from 'hono/streaming';
import { sseFrame, type SseMessage } from '../src/sse-frames.js';

/** What hono's own `writeSSE` writes for `message` (the fallback path writes frames with it). */
async function honoFrame(message: SseMessage): Promise<string> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const api = new SSEStreamingApi(writable, readable);
  const reader = api.responseReadable.getReader();
  const read = reader.read();
  await api.writeSSE(message);
  const { value } = await read;
  return new TextDecoder().decode(value);
}

describe('sseFrame', () => {
  it.each<SseMessage>([
    { id: '3', event: 'step', data: '{"type":"step","text":"a\\nb"}' },
    { event: 'error', data: '{"code":"LIMIT_EXCEEDED"}' },
    { event: 'reconnect', retry: 1000, data: '{}' },
    { data: 'two\nlines\r\nand\rthree' },
    { id: '0', event: 'start', data: '' },
  ])('writes what hono writeSSE writes: %j', async (message) => {
    expect(sseFrame(message)).toBe(await honoFrame(message));
  });

  it('refuses an event or id that would start another field', () => {
    expect(() => sseFrame({ event: 'x\nevent: y', data: '{}' })).toThrow();
    expect(() => sseFrame({ id: '1\r2', data: '{}' })).toThrow();
  });
});
