import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import { ToolError, type ToolContext } from 'reins';
import type { McpRoot } from './client-requests.js';
import { isUnauthorized } from './http-auth.js';
import { LiveConnection } from './live-connection.js';
import type { ResolvedOptions } from './options.js';
import { untrustedText } from './untrusted-text.js';

/** What the keeper asks of its bridge: where listings go, the roots to advertise, the call a request belongs to. */
export interface KeeperHooks {
  /** A connection's tool listing (on connect, and when the server says it changed), with its server's version. */
  applyListing(tools: readonly McpTool[], serverVersion: string | undefined): void;
  roots(): readonly McpRoot[];
  currentCall(): ToolContext | undefined;
}

/**
 * One MCP server's connection, kept up: connects with exponential backoff, reconnects in the
 * background after a loss (at once the first time, then less and less often), and tells a call
 * without a connection either to wait for the attempt in flight or to fail at once
 * (`SERVICE_UNAVAILABLE`, `details.down`; `PERMISSION_DENIED` when the server refused our
 * credentials). `McpBridge` owns one.
 */
export class ConnectionKeeper {
  readonly #o: ResolvedOptions;
  readonly #hooks: KeeperHooks;
  readonly #closing = new AbortController();
  #live: LiveConnection | undefined;
  #connecting: Promise<LiveConnection> | undefined;
  /** The connection attempt in flight (settles when it does; never rejects). */
  #attempt: Promise<void> | undefined;
  /** The last connection attempt was refused for want of authorization. */
  #refused = false;
  #latencyMs: number | undefined;
  #restarts = 0;
  #lossBackoff: IBackoff<unknown> | undefined;
  #reconnectTimer: unknown;
  /** Why the last attempt, probe or call failed (shown in `status()`). */
  lastError: string | undefined;

  constructor(options: ResolvedOptions, hooks: KeeperHooks) {
    this.#o = options;
    this.#hooks = hooks;
  }

  /** The connection when it is up. */
  get live(): LiveConnection | undefined {
    return this.#live;
  }

  get isConnecting(): boolean {
    return this.#connecting !== undefined;
  }

  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** Round trip of the last `tools/list`, of the live connection or the last one. */
  get latencyMs(): number | undefined {
    return this.#live?.latencyMs ?? this.#latencyMs;
  }

  /** Connections lost since start-up. */
  get restarts(): number {
    return this.#restarts;
  }

  /** A call got through: the next loss starts the backoff afresh. */
  worked(): void {
    this.#lossBackoff = undefined;
  }

  /** Disconnects for good; stdio servers are stopped (SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.#closing.abort();
    if (this.#reconnectTimer !== undefined) this.#o.deps.clearTimer(this.#reconnectTimer);
    const connecting = this.#connecting;
    const live = this.#live;
    this.#live = undefined;
    await live?.end('closed');
    await connecting?.then((c) => c.end('closed')).catch(() => undefined);
  }

  /**
   * The live connection. Without one, a call waits for at most one connection attempt (the one
   * in flight, or a new one when nothing is reconnecting) — never through a backoff pause: a
   * server known to be down fails the call at once with `SERVICE_UNAVAILABLE`, so the tool's
   * breaker and fallback act while the reconnect goes on in the background. (The read-only
   * retry after a connection lost mid-call waits for the immediate reconnect attempt.)
   */
  ready(signal: AbortSignal): Promise<LiveConnection> {
    if (this.#closing.signal.aborted) {
      return Promise.reject(new ToolError('SERVICE_UNAVAILABLE', `${this.#o.name}: the bridge is closed`));
    }
    if (this.#live !== undefined) return Promise.resolve(this.#live);
    if (this.#attempt === undefined && this.#connecting === undefined && this.#reconnectTimer === undefined) {
      void this.ensureConnecting().catch(() => {}); // starts an attempt at once
    }
    const attempt = this.#attempt;
    if (attempt === undefined) return Promise.reject(this.#down()); // pausing between attempts
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void attempt
        .then(() => (this.#live !== undefined ? resolve(this.#live) : reject(this.#down())))
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  ensureConnecting(): Promise<LiveConnection> {
    this.#connecting ??= this.#connectWithBackoff().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** A call refused because the server is down; not a transport failure (no retry waits for the reconnect). */
  #down(): ToolError {
    const why = this.lastError ?? 'not connected';
    if (this.#refused) return this.#cannotConnect(why);
    return new ToolError(
      'SERVICE_UNAVAILABLE',
      `${this.#o.name}: the server is down (reconnecting): ${why}`,
      {
        server: this.#o.name,
        down: true,
      },
    );
  }

  /** One reconnect episode: up to `maxAttempts` attempts, exponential backoff between them. */
  async #connectWithBackoff(): Promise<LiveConnection> {
    const { initialDelayMs, maxDelayMs, maxAttempts } = this.#o.reconnect;
    let backoff: IBackoff<unknown> = new ExponentialBackoff({
      initialDelay: initialDelayMs,
      maxDelay: maxDelayMs,
    }).next();
    for (let attempt = 1; ; attempt++) {
      if (this.#closing.signal.aborted) throw this.#cannotConnect('the bridge is closed');
      let settled!: () => void;
      this.#attempt = new Promise<void>((resolve) => (settled = resolve));
      let live: LiveConnection;
      try {
        live = await LiveConnection.open(this.#o, {
          onTools: (tools) => {
            if (this.#live !== undefined) this.#hooks.applyListing(tools, this.#live.serverVersion);
          },
          onLost: (connection, why) => this.#onLost(connection, why),
          roots: () => this.#hooks.roots(),
          currentCall: () => this.#hooks.currentCall(),
        });
      } catch (thrown) {
        this.lastError = describeThrown(thrown);
        // Refused credentials are not an outage: no backoff loop, and calls see PERMISSION_DENIED.
        this.#refused = isUnauthorized(thrown);
        this.#attempt = undefined;
        settled(); // after `lastError`: a call waiting for this attempt reports why it failed
        if (attempt >= maxAttempts || this.#refused) throw this.#cannotConnect(this.lastError);
        await this.#pause(backoff.duration);
        backoff = backoff.next(undefined);
        continue;
      }
      this.#attempt = undefined;
      if (this.#closing.signal.aborted) {
        settled();
        await live.end('closed');
        throw this.#cannotConnect('the bridge is closed');
      }
      this.#hooks.applyListing(live.tools, live.serverVersion);
      this.#live = live;
      this.#refused = false;
      settled();
      return live;
    }
  }

  #cannotConnect(why: string): ToolError {
    if (this.#refused) {
      return new ToolError(
        'PERMISSION_DENIED',
        `${this.#o.name}: the server refused our credentials: ${why}`,
        {
          server: this.#o.name,
        },
      );
    }
    return new ToolError('SERVICE_UNAVAILABLE', `${this.#o.name}: cannot connect: ${why}`, {
      server: this.#o.name,
      transport: true,
    });
  }

  /** Waits `ms`, or less when the bridge is closed. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const closing = this.#closing.signal;
      const timer = this.#o.deps.setTimer(done, ms);
      function done(): void {
        closing.removeEventListener('abort', done);
        resolve();
      }
      closing.addEventListener(
        'abort',
        () => {
          this.#o.deps.clearTimer(timer);
          done();
        },
        { once: true },
      );
    });
  }

  #onLost(connection: LiveConnection, why: string): void {
    if (this.#live !== connection) return;
    this.#live = undefined;
    this.#latencyMs = connection.latencyMs;
    this.lastError = why;
    this.#restarts++;
    if (this.#closing.signal.aborted) return;
    // A server that dies again and again is restarted less and less often.
    const firstOfStreak = this.#lossBackoff === undefined; // since start-up, or since a call last got through
    this.#lossBackoff =
      this.#lossBackoff?.next(undefined) ??
      new ExponentialBackoff({
        initialDelay: this.#o.reconnect.initialDelayMs,
        maxDelay: this.#o.reconnect.maxDelayMs,
      }).next();
    // The first loss of a streak reconnects at once: a call made meanwhile waits for that attempt.
    if (firstOfStreak) {
      void this.ensureConnecting().catch(() => {});
      return;
    }
    const delay = this.#lossBackoff.duration;
    this.#reconnectTimer = this.#o.deps.setTimer(() => {
      this.#reconnectTimer = undefined;
      if (this.#live === undefined && !this.#closing.signal.aborted)
        void this.ensureConnecting().catch(() => {});
    }, delay);
  }
}

/** A thrown value as one line of untrusted text, for `lastError`. */
export function describeThrown(thrown: unknown): string {
  return untrustedText(thrown instanceof Error ? thrown.message : String(thrown), 300);
}
