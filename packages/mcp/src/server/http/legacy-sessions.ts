import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { BoundedEventStore } from './bounded-event-store.js';
import { INVALID_REQUEST, jsonRpcError } from './json-rpc-errors.js';

export interface LegacySessionOptions {
  /** A session with no request for this long is closed (its streams end, its calls are cancelled). */
  readonly idleMs: number;
  /** Open sessions at most; an `initialize` beyond that is refused with 503 after expiring idle ones. */
  readonly maxSessions: number;
  /**
   * Open sessions per principal at most (all of an unauthenticated server's clients are one
   * principal). An `initialize` beyond that closes the principal's session idle longest — idle:
   * no POST being answered — or, when every one is busy, is refused with 429.
   */
  readonly maxSessionsPerPrincipal: number;
  readonly now: () => number;
  readonly newSessionId: () => string;
  /** SSE events kept per session for resumption (`Last-Event-ID`). */
  readonly maxResumableEvents: number;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly close: () => Promise<void>;
  /** Who opened it: another principal presenting its id is answered as if it did not exist. */
  readonly owner: string | undefined;
  lastSeen: number;
  /** POSTs of this session whose response has not ended: while above 0 it is not evicted. */
  inFlight: number;
}

/**
 * Sessionful serving of 2025-11-25 Streamable HTTP: one server instance and transport per
 * `Mcp-Session-Id`, so server→client requests (sampling, elicitation), standalone GET
 * streams, DELETE and `notifications/cancelled` reach the instance that runs the call.
 * (The SDK's default for this era is stateless, where a cancel lands on a fresh instance.)
 */
export class LegacySessions {
  readonly #sessions = new Map<string, Session>();
  /** `initialize` requests being answered, per owner: counted against the caps before they register. */
  readonly #opening = new Map<string | undefined, number>();
  readonly #factory: McpServerFactory;
  readonly #o: LegacySessionOptions;

  constructor(factory: McpServerFactory, options: LegacySessionOptions) {
    this.#factory = factory;
    this.#o = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  async handle(
    request: Request,
    parsedBody: unknown,
    authInfo: AuthInfo | undefined,
    owner: string | undefined,
  ): Promise<Response> {
    this.expireIdle();
    const sessionId = request.headers.get('mcp-session-id');
    const options = { parsedBody, ...(authInfo === undefined ? {} : { authInfo }) };
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (session === undefined || session.owner !== owner) {
        return jsonRpcError(404, INVALID_REQUEST, 'Session not found (expired or closed): initialize again');
      }
      session.lastSeen = this.#o.now();
      // A GET (standalone stream) only listens: it does not keep the session from being evicted.
      if (request.method !== 'POST') return session.transport.handleRequest(request, options);
      session.inFlight += 1;
      const answered = release(session);
      return untilEnded(
        await settleOr(session.transport.handleRequest(request, options), answered),
        answered,
      );
    }
    if (request.method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return jsonRpcError(400, INVALID_REQUEST, 'Bad Request: no Mcp-Session-Id (initialize first)');
    }
    const refused = this.#makeRoomFor(owner);
    if (refused !== undefined) return refused;
    let pending = 0;
    for (const n of this.#opening.values()) pending += n;
    if (this.#sessions.size + pending >= this.#o.maxSessions) {
      return jsonRpcError(503, INVALID_REQUEST, 'Too many open sessions: try again later', {
        'retry-after': '5',
      });
    }
    this.#opening.set(owner, (this.#opening.get(owner) ?? 0) + 1);
    // Set by the transport once the session exists (a holder: the callback assigns it).
    const opening: { session?: Session; answered?: () => void } = {};
    const opened = (): void => {
      const left = (this.#opening.get(owner) ?? 1) - 1;
      if (left > 0) this.#opening.set(owner, left);
      else this.#opening.delete(owner);
    };
    try {
      const server = await this.#factory({
        era: 'legacy',
        requestInfo: request,
        ...(authInfo === undefined ? {} : { authInfo }),
      });
      const transport: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: this.#o.newSessionId,
          // A broken response stream can be resumed (GET + Last-Event-ID) instead of losing the result.
          eventStore: new BoundedEventStore(this.#o.maxResumableEvents),
          onsessioninitialized: (id) => {
            // Registered busy: the initialize response itself is still being answered.
            const session: Session = {
              transport,
              close: () => server.close(),
              owner,
              lastSeen: this.#o.now(),
              inFlight: 1,
            };
            opening.session = session;
            opening.answered = release(session);
            this.#sessions.set(id, session);
            opened();
          },
          onsessionclosed: (id) => {
            this.#sessions.delete(id);
          },
        });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      const response = await transport.handleRequest(request, options);
      return opening.answered === undefined ? response : untilEnded(response, opening.answered);
    } catch (thrown) {
      opening.answered?.();
      throw thrown;
    } finally {
      if (opening.session === undefined) opened();
    }
  }

  /**
   * Keeps `owner` under its own cap before it opens one more session: closes its session idle
   * longest, or refuses (429) when every one of them is answering a request.
   */
  #makeRoomFor(owner: string | undefined): Response | undefined {
    let count = this.#opening.get(owner) ?? 0;
    let idlest: [string, Session] | undefined;
    for (const entry of this.#sessions) {
      const session = entry[1];
      if (session.owner !== owner) continue;
      count += 1;
      if (session.inFlight === 0 && (idlest === undefined || session.lastSeen < idlest[1].lastSeen))
        idlest = entry;
    }
    if (count < this.#o.maxSessionsPerPrincipal) return undefined;
    if (idlest === undefined) {
      return jsonRpcError(
        429,
        INVALID_REQUEST,
        `Too many open sessions for this principal (${this.#o.maxSessionsPerPrincipal}), each answering a request: close one or try again later`,
        { 'retry-after': '5' },
      );
    }
    const [id, session] = idlest;
    this.#sessions.delete(id);
    void session.close().catch(() => undefined);
    return undefined;
  }

  /** Closes sessions idle for longer than `idleMs`. */
  expireIdle(): void {
    const cutoff = this.#o.now() - this.#o.idleMs;
    for (const [id, session] of this.#sessions) {
      if (session.lastSeen < cutoff) {
        this.#sessions.delete(id);
        void session.close().catch(() => undefined);
      }
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((s) => s.close().catch(() => undefined)));
  }
}

/** Marks one request of `session` answered (once, however often called). */
function release(session: Session): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    session.inFlight -= 1;
  };
}

/** `promise`'s value; `onError` runs first when it rejects. */
async function settleOr<T>(promise: Promise<T>, onError: () => void): Promise<T> {
  try {
    return await promise;
  } catch (thrown) {
    onError();
    throw thrown;
  }
}

/**
 * The same response, calling `done` once its body has ended, failed or been cancelled (the
 * client went away): only then is the request no longer in flight.
 */
function untilEnded(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            done();
            controller.close();
          } else controller.enqueue(next.value);
        } catch (thrown) {
          done();
          controller.error(thrown);
        }
      },
      cancel(reason) {
        done();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
