import { describe, expect, it } from 'vitest';
import { SSEStreamingApi } from 'hono/streaming';
import { everyKeepAlive, FrameBatch, sseFrame, type SseMessage } from '../src/sse-frames.js';

/** What hono's own `writeSSE` writes for `message` (the format the stream used before batching). */
async function honoFrame(message: SseMessage): Promise<string> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const api = new SSEStreamingApi(writable, readable);
  const reader = api.responseReadable.getReader();
  const read = reader.read();
  await api.writeSSE(message);
  const { value } = await read;
  return new TextDecoder().decode(value);
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve)); // after the flush (a nextTick)

/** A sink that records each write; `hold` makes writes wait until `release()` (a slow reader). */
function recordingSink(hold = false) {
  const writes: string[] = [];
  const waiting: (() => void)[] = [];
  return {
    writes,
    release: () => waiting.splice(0).forEach((resolve) => resolve()),
    write(text: string): Promise<unknown> {
      writes.push(text);
      return hold ? new Promise<void>((resolve) => waiting.push(resolve)) : Promise.resolve();
    },
  };
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

describe('FrameBatch', () => {
  it('writes the frames added in one turn in one write, in order', async () => {
    const sink = recordingSink();
    const batch = new FrameBatch(sink);
    batch.add('a\n\n');
    batch.add('b\n\n');
    batch.add('c\n\n');
    expect(sink.writes).toEqual([]);
    await turn();
    expect(sink.writes).toEqual(['a\n\nb\n\nc\n\n']);
    batch.add('d\n\n');
    await turn();
    expect(sink.writes).toEqual(['a\n\nb\n\nc\n\n', 'd\n\n']);
  });

  it('hands the writer the unfinished write while a slow reader has not taken the last batch', async () => {
    const sink = recordingSink(true);
    const batch = new FrameBatch(sink);
    expect(batch.add('a\n\n')).toBeUndefined(); // nothing in flight: go on
    await turn();
    expect(batch.busy).toBe(true);
    const waitFor = batch.add('b\n\n');
    expect(waitFor).toBeInstanceOf(Promise);
    let resumed = false;
    void waitFor?.then(() => (resumed = true));
    await turn();
    expect(resumed).toBe(false);
    sink.release();
    await waitFor;
    expect(resumed).toBe(true);
    const drained = batch.drain();
    sink.release();
    await turn();
    sink.release();
    await drained;
    expect(sink.writes).toEqual(['a\n\n', 'b\n\n']);
    expect(batch.busy).toBe(false);
  });
});

describe('everyKeepAlive', () => {
  it('beats every stream with the same period from one timer, and stops each on its own', async () => {
    const beats = { a: 0, b: 0 };
    const stopA = everyKeepAlive(20, () => beats.a++);
    const stopB = everyKeepAlive(20, () => beats.b++);
    await new Promise((resolve) => setTimeout(resolve, 110));
    stopA();
    const aAtStop = beats.a;
    await new Promise((resolve) => setTimeout(resolve, 70));
    stopB();
    expect(aAtStop).toBeGreaterThanOrEqual(3);
    expect(beats.a).toBe(aAtStop);
    expect(beats.b).toBeGreaterThan(aAtStop);
  });
});
