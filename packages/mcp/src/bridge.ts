import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolError, type AnyTool, type ToolContext } from 'reins';
import type { ToolDefinitionSnapshot } from 'reins/node';
import { AsyncLocalStorage } from 'node:async_hooks';
import { resultOutput, resultText } from './call-result.js';
import { ToolCatalog, type PendingApproval, type SkippedTool } from './catalog.js';
import type { ToolEntry } from './import-tool.js';
import type { McpRoot } from './client-requests.js';
import { isUnauthorized } from './http-auth.js';
import { checkRoots } from './client-requests.js';
import { ConnectionKeeper, describeThrown as describe } from './connection-keeper.js';
import { responseStreamWatch, type LiveConnection } from './live-connection.js';
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
  readonly #keeper: ConnectionKeeper;
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
      options.deps.now,
    );
    this.#keeper = new ConnectionKeeper(options, {
      applyListing: (tools, serverVersion) => void this.#catalog.applyListing(tools, serverVersion),
      roots: () => this.#roots,
      currentCall: () => this.#currentCall(),
    });
  }

  get name(): string {
    return this.#o.name;
  }

  /** The tools callable now. Listing is cached per connection: this makes no request. */
  tools(): AnyTool[] {
    return this.#catalog.tools();
  }

  status(): McpStatus {
    const live = this.#keeper.live;
    return {
      server: this.#o.name,
      status: live !== undefined ? 'up' : this.#keeper.isConnecting ? 'connecting' : 'down',
      latencyMs: this.#keeper.latencyMs,
      tools: this.#catalog.callableCount,
      pendingApprovals: this.#catalog.pending().length,
      lastError: this.#keeper.lastError,
      protocolVersion: live?.protocolVersion,
      pid: live?.pid,
      restarts: this.#keeper.restarts,
    };
  }

  /**
   * Checks the server now: connects if needed, else a timed `tools/list` round trip (which
   * also refreshes the catalog). Never throws.
   */
  async probe(): Promise<McpStatus> {
    const live = this.#keeper.live;
    try {
      if (live === undefined) await this.#keeper.ensureConnecting();
      else this.#catalog.applyListing(await live.list(this.#o.connectTimeoutMs), live.serverVersion);
    } catch (thrown) {
      this.#keeper.lastError = describe(thrown);
      if (live !== undefined && isTransportFailure(thrown))
        await live.end(`probe failed: ${this.#keeper.lastError}`);
    }
    return this.status();
  }

  /** `mcp:<name>`: the `source` of this server's tool definitions in a drift report. */
  get source(): string {
    return `mcp:${this.#o.name}`;
  }

  /**
   * Every tool definition the server lists now, approved or not (a changed one too), as the
   * snapshots `reins tools check` and the server's drift check compare with the approved set
   * (`reins/node`). Re-lists first (a `tools/list`, like `probe`); rejects when the server
   * cannot be reached, so a server that is down is reported unchecked, not as tools removed.
   */
  async toolDefinitions(): Promise<ToolDefinitionSnapshot[]> {
    const status = await this.probe();
    if (status.status !== 'up') {
      throw new Error(`${this.#o.name} is ${status.status}: ${status.lastError ?? 'not connected'}`);
    }
    return this.#catalog.definitions();
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
    await this.#keeper.live?.client.sendRootsListChanged().catch(() => undefined);
  }

  /** Disconnects for good; stdio servers are stopped (SIGTERM, then SIGKILL). */
  close(): Promise<void> {
    return this.#keeper.close();
  }

  async #call(entry: ToolEntry, input: unknown, ctx: ToolContext): Promise<unknown> {
    this.#catalog.assertCallable(entry);
    const deadline = this.#o.deps.now() + this.#o.toolTimeoutMs;
    try {
      return await this.#callAuthorized(entry, input, ctx, deadline);
    } catch (thrown) {
      const retryable = entry.readOnly && isTransportFailure(thrown) && !ctx.signal.aborted;
      if (!retryable || this.#o.deps.now() >= deadline || this.#keeper.closing.aborted) throw thrown;
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
      const live = this.#keeper.live;
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
      const connection = await this.#keeper.ready(stop.signal);
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
      const call = (): Promise<unknown> =>
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
        );
      // Over HTTP a server request and a broken stream arrive in the call's own response stream,
      // so its async context names the call. Over stdio they arrive on the pipe, in no call's
      // context: the contexts would only cost (on Node 20 the first `run` turns on promise hooks
      // for the whole process, ~5% of a busy server's main thread), and a server request goes
      // to the one call in flight.
      const result = (await (this.#o.transport.kind === 'http'
        ? this.#callContext.run(ctx, () => responseStreamWatch.run(onBroken, call))
        : call())) as CallToolResult;
      this.#keeper.worked(); // the next loss starts the backoff afresh
      if (result.isError === true) throw errorFromResult(resultText(result), result.structuredContent, site);
      return resultOutput(result);
    } catch (thrown) {
      if (thrown instanceof ToolError && cause === undefined) throw thrown;
      if (isUnauthorized(thrown) && cause === undefined) throw thrown; // #callAuthorized decides
      if (streamBroken && cause === undefined) throw serverGone(site, 'the response stream broke mid-call');
      const error = errorFromThrown(thrown, site, cause);
      if (live !== undefined && cause === undefined && isTransportFailure(thrown)) {
        const why = live.lost ? this.#keeper.lastError : describe(thrown);
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

  #currentCall(): ToolContext | undefined {
    const here = this.#callContext.getStore();
    if (here !== undefined) return here;
    if (this.#inFlight.size !== 1) return undefined;
    return this.#inFlight.values().next().value;
  }
}
