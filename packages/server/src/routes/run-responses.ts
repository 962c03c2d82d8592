import type { Context } from 'hono';
import type { RunRecord } from 'reins';
import type { RunEntry } from '../run-registry.js';
import { ApiError } from '../http-error.js';
import { jsonBody } from '../json-body.js';
import type { ServerState } from '../server-state.js';
import { streamRun, type DrainEnding } from '../sse-stream.js';

/** What a JSON client gets when the run stops: the record (with its trace id, if traced) and the events of this stretch. */
export interface StopDocument {
  readonly record: RunRecord & { readonly trace_id?: string };
  readonly events: RunEntry['events'];
}

/** The run as the server shows it: with `trace_id` when the run is traced (additive). */
export function withTraceId<T extends object>(body: T, entry: RunEntry): T & { readonly trace_id?: string } {
  return entry.traceId === undefined ? body : { ...body, trace_id: entry.traceId };
}

export function wantsStream(c: Context): boolean {
  return (c.req.header('accept') ?? '').includes('text/event-stream');
}

/** SSE of the run's events from `fromSeq` to its next stop (its end or a pause). */
export function stream(c: Context, s: ServerState, entry: RunEntry, fromSeq: number): Response {
  if (c.req.raw.signal.aborted) s.metrics.abandoned.inc({ stage: 'while_starting' });
  const options = {
    keepAliveMs: s.limits.keepAliveMs,
    maxLagEvents: s.limits.maxStreamLagEvents,
    draining: s.draining,
    drainEnding: s.drainEnding,
    now: s.deps.now,
  };
  return streamRun(c, entry, fromSeq, s.registry, options, (delta) => {
    s.streams.open += delta;
    s.metrics.openStreams.inc(delta);
  });
}

/**
 * Waits for the run's next stop (its end, or a pause) and answers `{record, events}` with
 * the events from `fromSeq`. Read while the run runs (just started, or just resumed), so
 * `run.result` is that next stop's record. A client that leaves first detaches (and so
 * cancels the run).
 */
export async function json(c: Context, s: ServerState, entry: RunEntry, fromSeq: number): Promise<Response> {
  const nextStop = entry.run.result;
  const detach = s.registry.attach(entry);
  const signal = c.req.raw.signal;
  const onGone = (): void => detach(true);
  if (signal.aborted) {
    // The client left while the run was being started: it is cancelled at once, not run for nobody.
    s.metrics.abandoned.inc({ stage: 'while_starting' });
    onGone();
  } else signal.addEventListener('abort', onGone, { once: true });
  let refuse = (): void => undefined;
  const drained = new Promise<never>((_, reject) => {
    refuse = (): void =>
      reject(
        new ApiError(503, 'SERVICE_UNAVAILABLE', drainMessage(s.drainEnding, entry.runId), {
          'Retry-After': '1',
        }),
      );
    if (s.draining.aborted) refuse();
    else s.draining.addEventListener('abort', refuse, { once: true });
  });
  drained.catch(() => undefined); // raced below; never unhandled
  try {
    const record = await Promise.race([nextStop, drained]);
    const document: StopDocument = {
      record: withTraceId(record, entry),
      events: entry.events.slice(fromSeq),
    };
    return jsonBody(c, document);
  } finally {
    signal.removeEventListener('abort', onGone);
    s.draining.removeEventListener('abort', refuse);
    detach(false);
  }
}

function drainMessage(ending: DrainEnding, runId: string): string {
  if (ending.kind === 'reconnect')
    return `this server is shutting down: the run goes on; read it with GET /v1/runs/${runId}`;
  return ending.resumable
    ? `this server is shutting down: the run stops here and resumes when the server is back; read it with GET /v1/runs/${runId}`
    : 'this server is shutting down: the run was stopped and cannot be resumed; ask again';
}

/** The run's end, or `waitMs`, whichever comes first. */
export function settled(entry: RunEntry, waitMs: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([entry.ended, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]).finally(
    () => clearTimeout(timer),
  );
}

/**
 * An answer or approval is acknowledged only once it is stored (a durable run): until then a
 * crash would lose it. A store failing past its release time is a 503 — the answer was taken
 * by this process, but a restart would ask again.
 */
export async function acknowledged(entry: RunEntry): Promise<void> {
  if (!(await entry.run.persisted())) {
    throw new ApiError(
      503,
      'SERVICE_UNAVAILABLE',
      'the answer was taken but could not be stored; if the server restarts, it will be asked again',
    );
  }
}
