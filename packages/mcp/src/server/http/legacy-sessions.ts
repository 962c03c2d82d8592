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
}

/**
 * Sessionful serving of 2025-11-25 Streamable HTTP: one server instance and transport per
 * `Mcp-Session-Id`, so server→client requests (sampling, elicitation), standalone GET
 * streams, DELETE and `notifications/cancelled` reach the instance that runs the call.
 * (The SDK's default for this era is stateless, where a cancel lands on a fresh instance.)
 */
export class LegacySessions {
  readonly #sessions = new Map<string, Session>();
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
      return session.transport.handleRequest(request, options);
    }
    if (request.method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return jsonRpcError(400, INVALID_REQUEST, 'Bad Request: no Mcp-Session-Id (initialize first)');
    }
    if (this.#sessions.size >= this.#o.maxSessions) {
      return jsonRpcError(503, INVALID_REQUEST, 'Too many open sessions: try again later', {
        'retry-after': '5',
      });
    }
    const server = await this.#factory({
      era: 'legacy',
      requestInfo: request,
      ...(authInfo === undefined ? {} : { authInfo }),
    });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: this.#o.newSessionId,
      // A broken response stream can be resumed (GET + Last-Event-ID) instead of losing the result.
      eventStore: new BoundedEventStore(this.#o.maxResumableEvents),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, {
          transport,
          close: () => server.close(),
          owner,
          lastSeen: this.#o.now(),
        });
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, options);
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
