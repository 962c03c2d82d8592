import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunEntry, RunRegistry } from './run-registry.js';
import { claimDirect, directResponse } from './sse-direct.js';
import { sseFrame } from './sse-frames.js';
import { modelCallOf } from './model-call-event.js';
import { honoSink, responseSink, type SseSink } from './sse-sinks.js';

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
 * Served by `serve()` (@hono/node-server behind `withDirectSse`), the frames go straight to
 * Node's response (`sse-direct.ts`); elsewhere through hono's `streamSSE`. Same bytes, same
 * headers.
 *
 * Backpressure: the writer *pulls* events from the run's log and, when the response has not
 * taken a frame (`res.write()` returned false, or hono's web stream is waiting for `drain`),
 * waits before taking the next event. So a slow reader holds at most one event in flight plus
 * the socket buffers — the server never queues events per stream; what the reader has not
 * taken yet is simply still in the run's log (bounded by the run's limits and
 * `maxEventsPerRun`). A reader more than `maxLagEvents` behind is told so and disconnected.
 *
 * When the client goes away (the response closes before its end), the client is detached,
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
  const direct = claimDirect(c, {
    start: (res) =>
      void writeRun(responseSink(res), entry, fromSeq, registry, options, onOpenChange).catch(
        (error: unknown) => {
          console.error(error); // as hono's streamSSE does with a callback that throws
          res.destroy();
        },
      ),
    // Never streamed: the client got another answer; as a client that left at once.
    abandon: () => registry.attach(entry)(true),
  });
  if (direct) return directResponse(c);
  return streamSSE(c, (stream) =>
    writeRun(honoSink(stream, c.req.raw.signal), entry, fromSeq, registry, options, onOpenChange),
  );
}

async function writeRun(
  sink: SseSink,
  entry: RunEntry,
  fromSeq: number,
  registry: RunRegistry,
  options: SseOptions,
  onOpenChange: (delta: 1 | -1) => void,
): Promise<void> {
  const detach = registry.attach(entry);
  onOpenChange(1);
  const cursor = entry.feed.follow(fromSeq, 'stop');
  let gone = false;
  const unsubscribe = sink.onGone(() => {
    if (gone) return;
    gone = true;
    void cursor.return?.();
    detach(true);
  });
  let drained = false;
  const onDrain = (): void => {
    drained = true;
    void cursor.return?.();
  };
  if (options.draining?.aborted === true) onDrain();
  else options.draining?.addEventListener('abort', onDrain, { once: true });
  let lastSent = fromSeq - 1;
  const keepAlive = startKeepAlive(sink, options.keepAliveMs);
  // Replaying what was already logged is not falling behind: lag counts from here on.
  const liveFrom = entry.events.length;
  try {
    for (;;) {
      const next = await cursor.next();
      if (next.done === true || gone) break;
      const event = next.value;
      const lag = entry.events.length - 1 - event.seq;
      if (event.seq >= liveFrom && lag > options.maxLagEvents) {
        await sink.write(
          sseFrame({
            event: 'error',
            data: JSON.stringify({
              runId: entry.runId,
              code: 'LIMIT_EXCEEDED',
              message: `the client fell ${lag} events behind (max ${options.maxLagEvents}); reconnect with Last-Event-ID ${event.seq - 1} to resume`,
              lastEventId: event.seq - 1,
            }),
          }),
        );
        break;
      }
      const taken = sink.write(
        sseFrame({ id: String(event.seq), event: event.type, data: JSON.stringify(event) }),
      );
      if (taken !== undefined) await taken;
      lastSent = event.seq;
    }
    if (drained && !gone) {
      const ending = options.drainEnding ?? { kind: 'reconnect' };
      await sink.write(
        ending.kind === 'reconnect'
          ? reconnectFrame(entry.runId, lastSent)
          : interruptedFrame(entry, lastSent, ending.resumable, (options.now ?? Date.now)()),
      );
    }
  } finally {
    clearInterval(keepAlive);
    unsubscribe();
    options.draining?.removeEventListener('abort', onDrain);
    onOpenChange(-1);
    if (!gone) detach(false);
    sink.end();
  }
}

/** The last frame of a stream its instance is draining: where to resume, and when. */
function reconnectFrame(runId: string, lastEventId: number): string {
  return sseFrame({
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
function interruptedFrame(entry: RunEntry, lastSent: number, resumable: boolean, at: number): string {
  const sent = entry.events.slice(0, lastSent + 1);
  let steps = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (const event of sent) {
    const call = modelCallOf(event);
    if (call === undefined || event.type !== 'step') continue;
    steps = Math.max(steps, event.index);
    usage.inputTokens += call.usage?.inputTokens ?? 0;
    usage.outputTokens += call.usage?.outputTokens ?? 0;
  }
  const first = sent[0];
  return sseFrame({
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

function startKeepAlive(sink: SseSink, everyMs: number): ReturnType<typeof setInterval> {
  return setInterval(() => {
    // Never a keep-alive queued behind a slow reader: it is not idle.
    if (sink.busy || sink.closed) return;
    void sink.write(': keep-alive\n\n');
  }, everyMs);
}
