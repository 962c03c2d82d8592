import { describe, expect, it } from 'vitest';
import { followAgain, readFollowing } from '../src/follow-run.js';
import type { WireEvent } from '../src/run-events.js';

// Issue 16.12 on the page: a stream that ends because its server drains (`reconnect`) or
// restarts (`done {resumable: true}`) is followed again with Last-Event-ID; the page sees the
// run's own events to its real end, not the interim frame. (What `readRunResponse` does with a
// streamed body; no waiting here: `sleep` is instant.)

/** `readRunResponse`'s SSE path, with an instant sleep. */
async function readRun(
  first: Response,
  runId: string,
  onEvent: (e: WireEvent) => void,
  doFetch: typeof fetch,
) {
  const resumable = await readFollowing(first.body as ReadableStream<Uint8Array>, onEvent, -1);
  if (resumable === undefined) return { error: undefined };
  return {
    error: await followAgain(runId, resumable, onEvent, { fetch: doFetch, sleep: () => Promise.resolve() }),
  };
}

const sse = (frames: string[]): Response =>
  new Response(frames.join(''), { headers: { 'content-type': 'text/event-stream' } });
const frame = (id: number | undefined, type: string, data: Record<string, unknown>): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function scriptedFetch(answers: (Response | 'refused')[]) {
  const asked: { url: string; lastEventId: string | null }[] = [];
  const doFetch = (async (url: string, init?: RequestInit) => {
    asked.push({ url, lastEventId: new Headers(init?.headers).get('last-event-id') });
    const next = answers.shift();
    if (next === undefined || next === 'refused') throw new TypeError('fetch failed');
    return next;
  }) as unknown as typeof fetch;
  return { doFetch, asked };
}

describe('following a run again after its server went away', () => {
  it('a restart: the held done is not shown; the run is followed from Last-Event-ID to its real end', async () => {
    const first = sse([
      frame(0, 'start', { seq: 0 }),
      frame(1, 'step', { seq: 1 }),
      frame(undefined, 'done', {
        status: 'stopped',
        stopReason: 'interrupted',
        resumable: true,
        lastEventId: 1,
      }),
    ]);
    const { doFetch, asked } = scriptedFetch([
      'refused',
      new Response('{"error":{"code":"SERVICE_UNAVAILABLE"}}', { status: 503 }),
      sse([frame(2, 'message', { seq: 2, text: 'hi' }), frame(3, 'done', { seq: 3, status: 'success' })]),
    ]);
    const seen: WireEvent[] = [];
    const outcome = await readRun(first, 'run-1', (e) => seen.push(e), doFetch);
    expect(outcome.error).toBeUndefined();
    expect(seen.map((e) => `${e.type}:${String(e['seq'])}`)).toEqual([
      'start:0',
      'step:1',
      'message:2',
      'done:3',
    ]);
    expect(asked.map((a) => a.lastEventId)).toEqual(['1', '1', '1']);
    expect(asked[0]?.url).toBe('/v1/runs/run-1/events');
  });

  it('a drain (reconnect) is followed the same way, and a second reconnect too', async () => {
    const first = sse([frame(0, 'start', { seq: 0 }), frame(undefined, 'reconnect', { lastEventId: 0 })]);
    const { doFetch, asked } = scriptedFetch([
      sse([frame(1, 'step', { seq: 1 }), frame(undefined, 'reconnect', { lastEventId: 1 })]),
      sse([frame(2, 'done', { seq: 2, status: 'success' })]),
    ]);
    const seen: WireEvent[] = [];
    await readRun(first, 'run-2', (e) => seen.push(e), doFetch);
    expect(seen.map((e) => e.type)).toEqual(['start', 'step', 'done']);
    expect(asked.map((a) => a.lastEventId)).toEqual(['0', '1']);
  });

  it('a run that cannot be followed again (404): the held done is shown and the error says why', async () => {
    const first = sse([
      frame(0, 'start', { seq: 0 }),
      frame(undefined, 'done', {
        status: 'stopped',
        resumable: true,
        lastEventId: 0,
        message: 'shutting down',
      }),
    ]);
    const { doFetch } = scriptedFetch([new Response('{}', { status: 404 })]);
    const seen: WireEvent[] = [];
    const outcome = await readRun(first, 'run-3', (e) => seen.push(e), doFetch);
    expect(seen.map((e) => e.type)).toEqual(['start', 'done']);
    expect(outcome.error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'shutting down' });
  });
});
