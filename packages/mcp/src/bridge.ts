import type { CallToolResult } from '@modelcontextprotocol/client';
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import { ToolError, type AnyTool, type ToolContext } from 'reins';
import { resultOutput, resultText } from './call-result.js';
import { ToolCatalog, type PendingApproval, type SkippedTool } from './catalog.js';
import type { ToolEntry } from './import-tool.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpRoot } from './client-requests.js';
import { isUnauthorized } from './http-auth.js';
import { checkRoots } from './client-requests.js';
import { LiveConnection, responseStreamWatch } from './live-connection.js';
import {
  errorFromResult,
  errorFromThrown,
  isTransportFailure,
  serverGone,
  type StopCause,
} from './map-error.js';
import type { ResolvedOptions } from './options.js';
import { untrustedText } from './untrusted-text.js';

export type ServerState = 'up' | 'down' | 'connecting';

export interface McpStatus {
  readonly server: string;
  readonly status: ServerState;
  /** Round trip of the last `tools/list` (connect, probe or cancellation check), in ms. */
  readonly latencyMs: number | undefined;
  /** Tools callable now (approved and unchanged). */
  readonly tools: number;
  /** Tool definitions waiting for an operator's approval. */
  readonly pendingApprovals: number;
  readonly lastError: string | undefined;
  readonly protocolVersion: string | undefined;
  /** stdio: the server's process id. */
  readonly pid: number | undefined;
  /** Connections lost since start-up (crashes, kills, protocol violations). */
  readonly restarts: number;
}

/**
 * One MCP server's tools as Reins tools, kept connected.
 *
 * Contract: nothing here throws for a server's failures — calls fail with typed
 * `ToolError`s and `status()` tells the rest. A lost connection fails its pending calls at
 * once (`SERVICE_UNAVAILABLE`) and is re-established in the background with exponential
 * backoff; a call made while it is down waits for at most the connection attempt in flight
 * and otherwise fails at once (`SERVICE_UNAVAILABLE`, `details.down`), so breakers and
 * fallbacks act instead of a call hanging until its timeout; a read-only call is retried
 * once after a transport failure. Programmer mistakes
 * (`approveToolChange` of an unknown name) throw `TypeError`.
 */
export class McpBridge {
  readonly #o: ResolvedOptions;
  readonly #catalog: ToolCatalog;
  readonly #closing = new AbortController();
  #live: LiveConnection | undefined;
  #connecting: Promise<LiveConnection> | undefined;
  /** The connection attempt in flight (settles when it does; never rejects). */
  #attempt: Promise<void> | undefined;
  /** The last connection attempt was refused for want of authorization. */
  #refused = false;
  #lastError: string | undefined;
  #latencyMs: number | undefined;
  #restarts = 0;
  #lossBackoff: IBackoff<unknown> | undefined;
  #reconnectTimer: unknown;
  #roots: readonly McpRoot[];
  /** The tool call whose async context a server→client request arrives in (HTTP, 2026 input_required). */
  readonly #callContext = new AsyncLocalStorage<ToolContext>();
  /** Calls in flight: a server request with no async context belongs to the only one, if one. */
  readonly #inFlight = new Set<ToolContext>();

  constructor(options: ResolvedOptions) {
    this.#o = options;
    this.#roots = options.clientRequests.roots ?? [];
    const importOptions = {
      server: options.name,
      prefix: options.prefix,
      toolTimeoutMs: options.toolTimeoutMs,
      maxDescriptionLength: options.maxDescriptionLength,
      maxBase64Bytes: options.maxBase64Bytes,
      probe: async () => (await this.probe()).status === 'up',
    };
    this.#catalog = new ToolCatalog(
      importOptions,
      (entry, input, ctx) => this.#call(entry, input, ctx),
      options.pinned,
    );
  }

  get name(): string {
    return this.#o.name;
  }

  /** The tools callable now. Listing is cached per connection: this makes no request. */
  tools(): AnyTool[] {
    return this.#catalog.tools();
  }

  status(): McpStatus {
    const live = this.#live;
    return {
      server: this.#o.name,
      status: live !== undefined ? 'up' : this.#connecting !== undefined ? 'connecting' : 'down',
      latencyMs: live?.latencyMs ?? this.#latencyMs,
      tools: this.#catalog.callableCount,
      pendingApprovals: this.#catalog.pending().length,
      lastError: this.#lastError,
      protocolVersion: live?.protocolVersion,
      pid: live?.pid,
      restarts: this.#restarts,
    };
  }

  /**
   * Checks the server now: connects if needed, else a timed `tools/list` round trip (which
   * also refreshes the catalog). Never throws.
   */
  async probe(): Promise<McpStatus> {
    const live = this.#live;
    try {
      if (live === undefined) await this.#ensureConnecting();
      else this.#catalog.applyListing(await live.list(this.#o.connectTimeoutMs));
    } catch (thrown) {
      this.#lastError = describe(thrown);
      if (live !== undefined && isTransportFailure(thrown))
        await live.end(`probe failed: ${this.#lastError}`);
    }
    return this.status();
  }

  pendingApprovals(): PendingApproval[] {
    return this.#catalog.pending();
  }

  /** Approves the definition `name` (MCP name) shows now; see `ToolCatalog.approve`. */
  approveToolChange(name: string, expectedFingerprint?: string): void {
    this.#catalog.approve(name, expectedFingerprint);
  }

  /** Approved fingerprints, to pass as `pinned` next time. */
  fingerprints(): Record<string, string> {
    return this.#catalog.fingerprints();
  }

  skippedTools(): SkippedTool[] {
    return this.#catalog.skipped();
  }

  /**
   * Replaces the advertised roots and tells the server (`notifications/roots/list_changed`).
   * Throws `TypeError` when the bridge was made without `roots` or a root is not `file://`.
   */
  async setRoots(roots: readonly McpRoot[]): Promise<void> {
    if (this.#o.clientRequests.roots === undefined)
      throw new TypeError('connectMcp was called without `roots`');
    this.#roots = checkRoots(roots);
    await this.#live?.client.sendRootsListChanged().catch(() => undefined);
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

  async #call(entry: ToolEntry, input: unknown, ctx: ToolContext): Promise<unknown> {
    this.#catalog.assertCallable(entry);
    const deadline = this.#o.deps.now() + this.#o.toolTimeoutMs;
    try {
      return await this.#callAuthorized(entry, input, ctx, deadline);
    } catch (thrown) {
      const retryable = entry.readOnly && isTransportFailure(thrown) && !ctx.signal.aborted;
      if (!retryable || this.#o.deps.now() >= deadline || this.#closing.signal.aborted) throw thrown;
      return this.#callAuthorized(entry, input, ctx, deadline);
    }
  }

  /** One call; a call refused for want of authorization (e.g. OAuth step-up to more scope) is retried once after it. */
  async #callAuthorized(
    entry: ToolEntry,
    input: unknown,
    ctx: ToolContext,
    deadline: number,
  ): Promise<unknown> {
    const site = { server: this.#o.name, tool: entry.mcpName };
    try {
      return await this.#callOnce(entry, input, ctx, deadline);
    } catch (thrown) {
      if (!isUnauthorized(thrown)) throw thrown;
      const live = this.#live;
      if (live === undefined || !(await live.reauthorize().catch(() => false))) {
        throw errorFromThrown(thrown, site, undefined);
      }
    }
    try {
      return await this.#callOnce(entry, input, ctx, deadline);
    } catch (thrown) {
      throw isUnauthorized(thrown) ? errorFromThrown(thrown, site, undefined) : thrown;
    }
  }

  async #callOnce(entry: ToolEntry, input: unknown, ctx: ToolContext, deadline: number): Promise<unknown> {
    const site = { server: this.#o.name, tool: entry.mcpName };
    const stop = new AbortController();
    let cause: StopCause | undefined;
    let streamBroken = false;
    let settled = false;
    const onAbort = (): void => {
      cause ??= 'cancelled';
      stop.abort(new Error('cancelled by the caller'));
    };
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    const remaining = Math.max(1, deadline - this.#o.deps.now());
    const timer = this.#o.deps.setTimer(() => {
      cause ??= 'timeout';
      stop.abort(new Error('timed out'));
    }, remaining);
    let live: LiveConnection | undefined;
    try {
      const connection = await this.#ready(stop.signal);
      live = connection;
      this.#catalog.assertCallable(entry); // the reconnect may have brought a new listing
      const onBroken = (_error: unknown, resumable: boolean): void => {
        if (resumable && connection.resumesStreams) return; // the SDK resumes it (Last-Event-ID)
        // A macrotask later, so that a response read just before the break still wins.
        this.#o.deps.setTimer(() => {
          if (settled || cause !== undefined || stop.signal.aborted) return;
          streamBroken = true;
          stop.abort(new Error('the response stream broke'));
        }, 0);
      };
      this.#inFlight.add(ctx);
      const result = (await this.#callContext.run(ctx, () =>
        responseStreamWatch.run(onBroken, () =>
          connection.client.callTool(
            { name: entry.mcpName, arguments: input as Record<string, unknown> },
            {
              signal: stop.signal,
              // The approved definition, not the SDK's cache (we list with `cacheMode: 'bypass'`,
              // which leaves it empty): on 2026-07-28 HTTP the SDK mirrors `x-mcp-header`
              // arguments into `Mcp-Param-*` headers (SEP-2243) only when it knows the tool's
              // input schema. No output schema: the SDK would report invalid structured content
              // as -32602 (INVALID_PARAMETER); the imported tool's own output check does that.
              toolDefinition: entry.headerSource,
              timeout: Math.min(this.#o.callTimeoutMs, remaining),
              maxTotalTimeout: remaining,
              resetTimeoutOnProgress: true,
              onprogress: ({ progress, total, message }) =>
                ctx.progress?.({
                  progress,
                  ...(total === undefined ? {} : { total }),
                  ...(message === undefined ? {} : { message: untrustedText(message, 200) }),
                }),
            },
          ),
        ),
      )) as CallToolResult;
      this.#lossBackoff = undefined; // the server works: the next loss starts the backoff afresh
      if (result.isError === true) throw errorFromResult(resultText(result), result.structuredContent, site);
      return resultOutput(result);
    } catch (thrown) {
      if (thrown instanceof ToolError && cause === undefined) throw thrown;
      if (isUnauthorized(thrown) && cause === undefined) throw thrown; // #callAuthorized decides
      if (streamBroken && cause === undefined) throw serverGone(site, 'the response stream broke mid-call');
      const error = errorFromThrown(thrown, site, cause);
      if (live !== undefined && cause === undefined && isTransportFailure(thrown)) {
        const why = live.lost ? this.#lastError : describe(thrown);
        if (!live.lost) void live.end(`transport failure: ${why}`);
        throw serverGone(site, why ?? 'the connection was lost');
      }
      throw error;
    } finally {
      this.#inFlight.delete(ctx);
      settled = true;
      this.#o.deps.clearTimer(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The live connection. Without one, a call waits for at most one connection attempt (the one
   * in flight, or a new one when nothing is reconnecting) — never through a backoff pause: a
   * server known to be down fails the call at once with `SERVICE_UNAVAILABLE`, so the tool's
   * breaker and fallback act while the reconnect goes on in the background. (The read-only
   * retry after a connection lost mid-call waits for the immediate reconnect attempt.)
   */
  #ready(signal: AbortSignal): Promise<LiveConnection> {
    if (this.#closing.signal.aborted) {
      return Promise.reject(new ToolError('SERVICE_UNAVAILABLE', `${this.#o.name}: the bridge is closed`));
    }
    if (this.#live !== undefined) return Promise.resolve(this.#live);
    if (this.#attempt === undefined && this.#connecting === undefined && this.#reconnectTimer === undefined) {
      void this.#ensureConnecting().catch(() => {}); // starts an attempt at once
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

  /** A call refused because the server is down; not a transport failure (no retry waits for the reconnect). */
  #down(): ToolError {
    const why = this.#lastError ?? 'not connected';
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

  #ensureConnecting(): Promise<LiveConnection> {
    this.#connecting ??= this.#connectWithBackoff().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
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
            if (this.#live !== undefined) this.#catalog.applyListing(tools);
          },
          onLost: (connection, why) => this.#onLost(connection, why),
          roots: () => this.#roots,
          currentCall: () => this.#currentCall(),
        });
      } catch (thrown) {
        this.#lastError = describe(thrown);
        // Refused credentials are not an outage: no backoff loop, and calls see PERMISSION_DENIED.
        this.#refused = isUnauthorized(thrown);
        this.#attempt = undefined;
        settled(); // after `lastError`: a call waiting for this attempt reports why it failed
        if (attempt >= maxAttempts || this.#refused) throw this.#cannotConnect(this.#lastError);
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
      this.#catalog.applyListing(live.tools);
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

  #currentCall(): ToolContext | undefined {
    const here = this.#callContext.getStore();
    if (here !== undefined) return here;
    if (this.#inFlight.size !== 1) return undefined;
    return this.#inFlight.values().next().value;
  }

  #onLost(connection: LiveConnection, why: string): void {
    if (this.#live !== connection) return;
    this.#live = undefined;
    this.#latencyMs = connection.latencyMs;
    this.#lastError = why;
    this.#restarts++;
    if (this.#closing.signal.aborted) return;
    // A server that dies again and again is restarted less and less often.
    this.#lossBackoff =
      this.#lossBackoff?.next(undefined) ??
      new ExponentialBackoff({
        initialDelay: this.#o.reconnect.initialDelayMs,
        maxDelay: this.#o.reconnect.maxDelayMs,
      }).next();
    // The first loss reconnects at once: a call made meanwhile waits for that attempt.
    if (this.#restarts === 1) {
      void this.#ensureConnecting().catch(() => {});
      return;
    }
    const delay = this.#lossBackoff.duration;
    this.#reconnectTimer = this.#o.deps.setTimer(() => {
      this.#reconnectTimer = undefined;
      if (this.#live === undefined && !this.#closing.signal.aborted)
        void this.#ensureConnecting().catch(() => {});
    }, delay);
  }
}

function describe(thrown: unknown): string {
  return untrustedText(thrown instanceof Error ? thrown.message : String(thrown), 300);
}
