import { authHeaders, writeHeaders } from './api.js';
import { obj, type WireEvent } from './run-events.js';
import { followAgain, readFollowing } from './follow-run.js';

export interface RunRequest {
  readonly agent: string;
  readonly input: string;
  /** `auto`: the server chooses from the query, within the agent's limit (the `start` event says how). */
  readonly maxSteps?: number | 'auto';
  readonly model?: string;
  /** Continue this conversation (the server names a new one in `start` when absent). */
  readonly conversationId?: string;
}

export interface RunHandlers {
  /** Each event as it arrives (streamed), or all of them at once (the JSON fallback). */
  readonly onEvent: (event: WireEvent) => void;
  /** The run id, as soon as the server names it (before the first event). */
  readonly onRunId?: (runId: string) => void;
}

export interface RunOutcome {
  readonly runId: string | undefined;
  /** How the answer came: streamed live, or one JSON document (streaming unavailable). */
  readonly transport: 'sse' | 'json';
  /** The run record, when the server sent one (JSON fallback). */
  readonly record?: unknown;
  /** A failure before or instead of events, as data. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** Whether this browser can read a streamed response body. */
export function canStream(): boolean {
  return typeof ReadableStream === 'function' && typeof TextDecoder === 'function';
}

/**
 * Starts a run: `POST /v1/runs` asking for SSE, read frame by frame; when the server (or a
 * proxy, or this browser) cannot stream, the same request answered as one JSON document
 * `{record, events}` is replayed through `onEvent`. `signal` aborting closes the stream, which
 * cancels the run on the server too.
 */
export async function startRun(
  request: RunRequest,
  handlers: RunHandlers,
  options: { readonly signal?: AbortSignal; readonly stream?: boolean; readonly fetch?: typeof fetch } = {},
): Promise<RunOutcome> {
  const doFetch = options.fetch ?? fetch;
  const stream = (options.stream ?? true) && canStream();
  let response: Response;
  try {
    response = await doFetch('/v1/runs', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
        ...authHeaders(),
      },
      body: JSON.stringify(request),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    return { runId: undefined, transport: 'sse', error: failure(error) };
  }
  const runId = response.headers.get('x-run-id') ?? undefined;
  if (runId !== undefined) handlers.onRunId?.(runId);
  return readRunResponse(response, runId, handlers.onEvent, doFetch);
}

/**
 * Reads a run response: SSE frame by frame, or the JSON document `{record, events}` replayed
 * through `onEvent`; an error status becomes data.
 */
export async function readRunResponse(
  response: Response,
  runId: string | undefined,
  onEvent: (event: WireEvent) => void,
  doFetch: typeof fetch = fetch,
): Promise<RunOutcome> {
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok) {
    const body = obj(await response.json().catch(() => null));
    const error = obj(body?.['error']);
    return {
      runId,
      transport: 'json',
      error: {
        code: typeof error?.['code'] === 'string' ? error['code'] : `HTTP_${response.status}`,
        message: typeof error?.['message'] === 'string' ? error['message'] : response.statusText,
      },
    };
  }
  if (type.includes('text/event-stream') && response.body !== null) {
    try {
      // A server that drains or restarts says so; the run is followed again where it stopped.
      const resumable = await readFollowing(response.body, onEvent, -1);
      if (resumable === undefined) return { runId, transport: 'sse' };
      if (runId === undefined) {
        if (resumable.held !== undefined) onEvent(resumable.held);
        return { runId, transport: 'sse' };
      }
      const error = await followAgain(runId, resumable, onEvent, { fetch: doFetch, headers: authHeaders() });
      return error === undefined ? { runId, transport: 'sse' } : { runId, transport: 'sse', error };
    } catch (error) {
      return { runId, transport: 'sse', error: failure(error) };
    }
  }
  const document = obj(await response.json().catch(() => null));
  const events = Array.isArray(document?.['events']) ? (document['events'] as unknown[]) : [];
  for (const event of events) if (obj(event) !== undefined) onEvent(event as WireEvent);
  return { runId, transport: 'json', record: document?.['record'] };
}

/**
 * Answers the clarifying question a paused run waits for (`POST /v1/runs/:id/answer
 * {questionId, answer}`) and follows the resumed run to its next stop, into `onEvent`.
 */
export async function answerRun(
  runId: string,
  body: { readonly questionId: string; readonly answer: string },
  onEvent: (event: WireEvent) => void,
  options: { readonly signal?: AbortSignal; readonly fetch?: typeof fetch } = {},
): Promise<RunOutcome> {
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(`/v1/runs/${encodeURIComponent(runId)}/answer`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: canStream() ? 'text/event-stream' : 'application/json',
        ...authHeaders(),
      },
      body: JSON.stringify(body),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return await readRunResponse(response, runId, onEvent, doFetch);
  } catch (error) {
    return { runId, transport: 'sse', error: failure(error) };
  }
}

function failure(error: unknown): { code: string; message: string } {
  if (error instanceof DOMException && error.name === 'AbortError')
    return { code: 'CANCELLED', message: 'stopped' };
  return { code: 'SERVICE_UNAVAILABLE', message: String(error) };
}

/** Asks the server to cancel the run; the stream then ends with `done {status: 'cancelled'}`. */
export async function cancelRun(runId: string, doFetch: typeof fetch = fetch): Promise<boolean> {
  try {
    const response = await doFetch(`/v1/runs/${encodeURIComponent(runId)}/cancel`, {
      method: 'POST',
      headers: { accept: 'application/json', ...authHeaders(), ...writeHeaders('POST') },
    });
    return response.ok;
  } catch {
    return false;
  }
}
