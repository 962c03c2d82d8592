import { num, obj, type WireEvent } from './run-events.js';
import { readSse } from './sse.js';

/**
 * Where a stream stopped without the run stopping: the server said `reconnect` (it is draining;
 * the run goes on on another instance) or ended with `done {resumable: true}` (it is restarting;
 * the run resumes when it is back). `lastEventId`: what the client has, to resume after.
 */
export interface Resumable {
  readonly lastEventId: number;
  readonly retryMs: number;
  /** The `done {resumable}` frame, shown if the run cannot be followed again. */
  readonly held?: WireEvent;
}

/** How long the page keeps trying to follow a run whose server went away (a restart takes a few seconds). */
const FOLLOW_FOR_MS = 60_000;

/**
 * Reads one SSE body into `onEvent`, holding back the frames that only say "follow me again"
 * (`reconnect`, `done {resumable: true}`); returns where to resume, or undefined when the run
 * reached a real stop.
 */
export async function readFollowing(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: WireEvent) => void,
  from: number,
): Promise<Resumable | undefined> {
  let last = from;
  let resumable: Resumable | undefined;
  await readSse(body, (event) => {
    if (event.type === 'reconnect') {
      resumable = { lastEventId: num(event['lastEventId']) ?? last, retryMs: 1_000 };
      return;
    }
    if (event.type === 'done' && event['resumable'] === true) {
      resumable = { lastEventId: num(event['lastEventId']) ?? last, retryMs: 1_000, held: event };
      return;
    }
    const seq = num(event.seq);
    if (seq !== undefined) last = Math.max(last, seq);
    onEvent(event);
  });
  return resumable;
}

/**
 * Follows a run again after its server went away (`GET /v1/runs/:id/events`, `Last-Event-ID`),
 * retrying while the server is unreachable or says 503, for up to a minute. When it gives up, the
 * held `done` (if any) is shown, so the page still ends the run; the error says why.
 */
export async function followAgain(
  runId: string,
  resumable: Resumable,
  onEvent: (event: WireEvent) => void,
  options: {
    readonly fetch?: typeof fetch;
    /** The caller's credentials (the page's `authHeaders()`). */
    readonly headers?: Record<string, string>;
    readonly sleep?: (ms: number) => Promise<void>;
    readonly now?: () => number;
  } = {},
): Promise<{ readonly code: string; readonly message: string } | undefined> {
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const giveUpAt = now() + FOLLOW_FOR_MS;
  let at = resumable;
  let wait = at.retryMs;
  // What the page has now (a stream cut mid-way may have shown more than `at` says).
  let last = at.lastEventId;
  const show = (event: WireEvent): void => {
    const seq = num(event.seq);
    if (seq !== undefined) last = Math.max(last, seq);
    onEvent(event);
  };
  while (now() < giveUpAt) {
    await sleep(wait);
    wait = Math.min(wait * 1.5, 5_000);
    let response: Response;
    try {
      response = await doFetch(`/v1/runs/${encodeURIComponent(runId)}/events`, {
        headers: { accept: 'text/event-stream', 'last-event-id': String(at.lastEventId), ...options.headers },
      });
    } catch {
      continue; // the server is not back yet
    }
    if (response.status === 503 || response.status === 502 || response.status === 504) continue;
    if (!response.ok || response.body === null) break;
    const before = at;
    // A stream cut mid-way: follow again from what was shown.
    const next = await readFollowing(response.body, show, at.lastEventId).catch((): Resumable => ({
      ...before,
      lastEventId: last,
      retryMs: 1_000,
    }));
    if (next === undefined) return undefined; // the run reached its real stop
    at = { ...next, lastEventId: Math.max(next.lastEventId, last) };
    wait = at.retryMs;
  }
  if (at.held !== undefined) onEvent(at.held);
  const error = obj(at.held)?.['message'];
  return {
    code: 'SERVICE_UNAVAILABLE',
    message: typeof error === 'string' ? error : 'the server went away while this run was going on',
  };
}
