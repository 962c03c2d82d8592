import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * SSE written straight to Node's `ServerResponse`, skipping hono's web-stream plumbing
 * (`streamSSE`'s TransformStream, @hono/node-server's reader loop): a stream's frames cost one
 * `res.write` each.
 *
 * The handler cannot write the response itself: middlewares set headers *after* it returns
 * (security headers, CORS, `Connection: close` while draining). So `withDirectSse` wraps the
 * app's `fetch`: it gives each Node request a slot; an SSE handler that finds the slot claims
 * it and answers a bodiless response marked `DIRECT_SSE_HEADER`; once every middleware has run,
 * the wrapper writes *that* response's status and headers to Node and starts the writer, and
 * tells @hono/node-server the response is already sent. Without the wrapper (another runtime,
 * `app.request()`, `@hono/node-server` used directly) there is no slot and the route streams
 * through hono's `streamSSE` as before.
 */
export const DIRECT_SSE_HEADER = 'x-reins-direct-sse';
// @hono/node-server's own marker: a bodiless response carrying it is left alone.
const ALREADY_SENT_HEADER = 'x-hono-already-sent';

interface Slot {
  claim?: DirectStream;
}

export interface DirectStream {
  /** Streams to `res`, whose status and headers are written. */
  readonly start: (res: ServerResponse) => void;
  /** The response the client got is another one (e.g. an error a middleware answered). */
  readonly abandon: () => void;
}

const slots = new WeakMap<object, Slot>();

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

function nodeResponse(env: unknown): ServerResponse | undefined {
  if (typeof env !== 'object' || env === null || !('outgoing' in env)) return undefined;
  const outgoing = (env as { outgoing: unknown }).outgoing;
  if (typeof outgoing !== 'object' || outgoing === null) return undefined;
  if (typeof (outgoing as Partial<ServerResponse>).writeHead !== 'function') return undefined;
  return outgoing as ServerResponse;
}

/** `fetch` for @hono/node-server whose SSE routes write to Node's response directly. */
export function withDirectSse(fetch: Fetch): Fetch {
  return async (request, env) => {
    const res = nodeResponse(env);
    if (res === undefined) return fetch(request, env);
    const slot: Slot = {};
    slots.set(res, slot);
    let response: Response;
    try {
      response = await fetch(request, env);
    } finally {
      slots.delete(res);
    }
    const claim = slot.claim;
    if (claim === undefined) return response;
    if (response.body !== null || !response.headers.has(DIRECT_SSE_HEADER)) {
      claim.abandon();
      return response;
    }
    res.writeHead(response.status, nodeHeaders(response.headers));
    claim.start(res);
    return alreadySent();
  };
}

let sent: Response | undefined;

/**
 * What @hono/node-server leaves alone (its `RESPONSE_ALREADY_SENT`, made here: that one is
 * made when its module loads and is unusable if node-server's own lighter `Response` was the
 * global by then). Reading `body` turns that lighter kind into a plain one: its cached fast
 * path would write the headers again.
 */
function alreadySent(): Response {
  if (sent === undefined) {
    sent = new Response(null, { headers: { [ALREADY_SENT_HEADER]: '1' } });
    void sent.body;
  }
  return sent;
}

/**
 * Claims the request's direct slot for `stream`: `true` when the wrapper will start it (answer
 * `directResponse(c)`), `false` when there is no wrapper (stream through hono instead).
 */
export function claimDirect(c: Context, stream: DirectStream): boolean {
  const res = nodeResponse(c.env);
  const slot = res === undefined ? undefined : slots.get(res);
  if (slot === undefined || slot.claim !== undefined) return false;
  slot.claim = stream;
  return true;
}

/** The response a claimed handler answers: the headers `streamSSE` sets, no body yet. */
export function directResponse(c: Context): Response {
  c.header('Transfer-Encoding', 'chunked');
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache');
  c.header('Connection', 'keep-alive');
  c.header(DIRECT_SSE_HEADER, '1');
  return c.body(null);
}

function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of headers) {
    if (name === DIRECT_SSE_HEADER) continue;
    out[name] = name === 'set-cookie' ? headers.getSetCookie() : value;
  }
  return out;
}
