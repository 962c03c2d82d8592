import type { MiddlewareHandler } from 'hono';
import { errorBody } from './http-error.js';

/**
 * The front door for a graceful shutdown: counts the requests being answered, and once
 * closed refuses new ones with 503 `SERVICE_UNAVAILABLE`, `Retry-After: 1` and
 * `Connection: close` (a kept-alive connection ends after its answer, so the client comes
 * back on a new connection — to another instance, or to this one restarted). A request that
 * was already inside finishes normally, its answer with `Connection: close` too.
 *
 * An SSE answer leaves the gate as soon as its headers are sent: open streams are counted
 * apart (`ServerState.streams`). One gate may guard nested apps (the kitchen's outer app and
 * the Reins app it forwards `/v1` to): a request it let in passes the inner one uncounted.
 *
 * Paths in `options.exempt` (the server's liveness probe, `/health/live`) pass while draining
 * too, uncounted: a draining process is alive, and a liveness probe that failed during the grace
 * period would get it killed before its runs end.
 */
export class RequestGate {
  #inFlight = 0;
  #closed = false;
  readonly #exempt: ReadonlySet<string>;
  readonly #admitted = new WeakSet<Request>();
  readonly #idleWaiters = new Set<() => void>();

  constructor(options: { readonly exempt?: readonly string[] } = {}) {
    this.#exempt = new Set(options.exempt ?? []);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** From now on, new requests are refused. */
  close(): void {
    this.#closed = true;
  }

  /** Resolves `true` once no request is being answered, or `false` after `ms`. */
  whenIdle(ms: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean): void => {
        clearTimeout(timer);
        this.#idleWaiters.delete(onIdle);
        resolve(idle);
      };
      const onIdle = (): void => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.#idleWaiters.add(onIdle);
    });
  }

  readonly middleware: MiddlewareHandler = async (c, next) => {
    if (this.#admitted.has(c.req.raw) || this.#exempt.has(c.req.path)) return next();
    if (this.#closed) {
      c.header('Connection', 'close');
      c.header('Retry-After', '1');
      return c.json(
        errorBody('SERVICE_UNAVAILABLE', 'this server is shutting down: try again in a moment'),
        503,
      );
    }
    this.#admitted.add(c.req.raw);
    this.#inFlight++;
    try {
      await next();
    } finally {
      this.#inFlight--;
      if (this.#inFlight === 0) for (const onIdle of [...this.#idleWaiters]) onIdle();
    }
    if (this.#closed) c.header('Connection', 'close');
    return undefined;
  };
}
