import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { RunEvent } from 'reins';
import type { RunEntry, RunRegistry } from './run-registry.js';

export interface SseOptions {
  /** A comment line every this many ms, so proxies keep an idle stream open; default 15 000. */
  readonly keepAliveMs: number;
  /**
   * How far (in events) the writer may fall behind the run before the stream is closed with
   * a `LIMIT_EXCEEDED` error; default 1 000. The client can resume with `Last-Event-ID`.
   */
  readonly maxLagEvents: number;
  /**
   * Aborted when the instance drains (SIGTERM), after its grace period: the stream ends with
   * `drainEnding`'s last frame.
   */
  readonly draining?: AbortSignal;
  /**
   * What a draining instance tells the client. `reconnect` (the shared mode: the run goes on
   * elsewhere): an event `reconnect` (`{code: "SERVER_DRAINING", lastEventId}`) and a `retry:`
   * hint; the client follows the run from another instance with `Last-Event-ID`. `interrupted`
   * (the run lives in this process): a final `done {stopped, interrupted}` with no `id:` (the
   * resume point stays the last event sent) saying whether the run is `resumable` — stored and
   * resumed at the next start — or gone. Default `reconnect`.
   */
  readonly drainEnding?: DrainEnding;
  readonly now?: () => number;
}

export type DrainEnding =
  { readonly kind: 'reconnect' } | { readonly kind: 'interrupted'; readonly resumable: boolean };

/**
 * Streams a run's events from `fromSeq` to its next stop as SSE: the stream ends after a
 * `done` — the run's end, or a pause (`done {awaiting_…}`), which is a normal end of the
 * stream, not a disconnect: the run waits for its user. A pause the run has already gone past
 * (a replay) is streamed through. Each frame: `id:` the event's seq, `event:` its type, one
 * `data:` line of JSON (JSON.stringify escapes newlines, so nothing the model writes can
 * start a new field or event).
 *
 * Backpressure: the writer *pulls* events from the run's log and awaits every write; the
 * write resolves only when the HTTP response has taken the bytes (hono's TransformStream →
 * @hono/node-server, which waits for `drain`). So a slow reader holds at most one event in
 * flight plus the socket buffers — the server never queues events per stream; what the
 * reader has not taken yet is simply still in the run's log (bounded by the run's limits and
 * `maxEventsPerRun`). A reader more than `maxLagEvents` behind is told so and disconnected.
 *
 * When the client goes away (`stream.onAbort`, `c.req.raw.signal`), the client is detached,
 * which cancels a running run if it was the last client (see `RunRegistry.attach`).
 */
export function streamRun(
  c: Context,
  entry: RunEntry,
  fromSeq: number,
  registry: RunRegistry,
  options: SseOptions,
  onOpenChange: (delta: 1 | -1) => void,
): Response {
  return streamSSE(c, async (stream) => {
    const detach = registry.attach(entry);
    onOpenChange(1);
    const cursor = entry.feed.follow(fromSeq, 'stop');
    let gone = false;
    const onGone = (): void => {
      if (gone) return;
      gone = true;
      void cursor.return?.();
      detach(true);
    };
    stream.onAbort(onGone);
    if (c.req.raw.signal.aborted)
      onGone(); // gone already (while the run was being started)
    else c.req.raw.signal.addEventListener('abort', onGone, { once: true });
    let drained = false;
    const onDrain = (): void => {
      drained = true;
      void cursor.return?.();
    };
    if (options.draining?.aborted === true) onDrain();
    else options.draining?.addEventListener('abort', onDrain, { once: true });
    let lastSent = fromSeq - 1;
    const keepAlive = startKeepAlive(stream, options.keepAliveMs);
    // Replaying what was already logged is not falling behind: lag counts from here on.
    const liveFrom = entry.events.length;
    try {
      for (;;) {
        const next = await cursor.next();
        if (next.done === true || gone) break;
        const event = next.value;
        const lag = entry.events.length - 1 - event.seq;
        if (event.seq >= liveFrom && lag > options.maxLagEvents) {
          await stream.writeSSE({
            event: 'error',
            data: JSON.stringify({
              runId: entry.runId,
              code: 'LIMIT_EXCEEDED',
              message: `the client fell ${lag} events behind (max ${options.maxLagEvents}); reconnect with Last-Event-ID ${event.seq - 1} to resume`,
              lastEventId: event.seq - 1,
            }),
          });
          break;
        }
        await writeEvent(stream, event);
        lastSent = event.seq;
      }
      if (drained && !gone) {
        const ending = options.drainEnding ?? { kind: 'reconnect' };
        if (ending.kind === 'reconnect') await writeReconnect(stream, entry.runId, lastSent);
        else await writeInterrupted(stream, entry, lastSent, ending.resumable, (options.now ?? Date.now)());
      }
    } finally {
      clearInterval(keepAlive);
      c.req.raw.signal.removeEventListener('abort', onGone);
      options.draining?.removeEventListener('abort', onDrain);
      onOpenChange(-1);
      if (!gone) detach(false);
    }
  });
}

/** The last frame of a stream its instance is draining: where to resume, and when. */
function writeReconnect(stream: SSEStreamingApi, runId: string, lastEventId: number): Promise<void> {
  return stream.writeSSE({
    event: 'reconnect',
    retry: 1_000,
    data: JSON.stringify({
      runId,
      code: 'SERVER_DRAINING',
      message: 'this server is shutting down: the run goes on; follow it again with Last-Event-ID',
      lastEventId,
    }),
  });
}

/**
 * The last frame of a stream whose run stops with this process: a `done` shaped like the
 * run's own (steps and usage so far), `stopReason: "interrupted"`, and whether it resumes.
 */
function writeInterrupted(
  stream: SSEStreamingApi,
  entry: RunEntry,
  lastSent: number,
  resumable: boolean,
  at: number,
): Promise<void> {
  const sent = entry.events.slice(0, lastSent + 1);
  let steps = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (const event of sent) {
    if (event.type !== 'step' || event.phase !== 'reason') continue;
    steps = Math.max(steps, event.index);
    usage.inputTokens += event.usage.inputTokens;
    usage.outputTokens += event.usage.outputTokens;
  }
  const first = sent[0];
  return stream.writeSSE({
    event: 'done',
    data: JSON.stringify({
      type: 'done',
      runId: entry.runId,
      seq: lastSent + 1,
      at,
      status: 'stopped',
      stopReason: 'interrupted',
      steps,
      usage,
      durationMs: first === undefined ? 0 : at - first.at,
      resumable,
      lastEventId: lastSent,
      message: resumable
        ? `this server is shutting down: the run stops here and resumes when the server is back; follow it with GET /v1/runs/${entry.runId}/events and Last-Event-ID ${lastSent}`
        : 'this server is shutting down: the run was stopped and cannot be resumed; ask again',
    }),
  });
}

function writeEvent(stream: SSEStreamingApi, event: RunEvent): Promise<void> {
  return stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
}

function startKeepAlive(stream: SSEStreamingApi, everyMs: number): ReturnType<typeof setInterval> {
  let pending = false;
  return setInterval(() => {
    // Never more than one keep-alive queued behind a slow reader.
    if (pending || stream.closed || stream.aborted) return;
    pending = true;
    void stream.write(': keep-alive\n\n').finally(() => (pending = false));
  }, everyMs);
}
