import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Client,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type Tool as McpTool,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import type { ToolContext } from 'reins';
import { CancelWatchdog } from './cancel-watchdog.js';
import { clientCapabilities, registerClientRequests, type McpRoot } from './client-requests.js';
import { completeAuthorization, isUnauthorized } from './http-auth.js';
import { ChildProcessTransport, MalformedMessageError } from './child-transport.js';
import type { ProtocolChoice, ResolvedOptions } from './options.js';

const CLIENT_INFO = { name: 'reins-mcp', version: '0.1.0' };

/**
 * HTTP: who to tell when the SSE response stream of a request breaks (socket destroyed,
 * connection reset) before it has ended. The SDK reports that only through `onerror`, naming
 * no request, and leaves the request pending until its timeout; a call made inside
 * `responseStreamWatch.run(onBroken, …)` learns of it at once. `resumable` says the stream
 * carried event ids, so a 2025-era SDK client resumes it (`GET` + `Last-Event-ID`); a resume
 * that is refused or cannot connect is reported as not resumable. A stream that ends
 * normally is not reported.
 */
export const responseStreamWatch = new AsyncLocalStorage<(error: unknown, resumable: boolean) => void>();

/** `fetch` whose SSE response bodies report a broken stream to the caller in `responseStreamWatch`. */
const watchedFetch: typeof fetch = async (input, init) => {
  const onBroken = responseStreamWatch.getStore();
  const resuming = init?.method === 'GET' && new Headers(init.headers).has('last-event-id');
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    if (resuming && init?.signal?.aborted !== true) onBroken?.(error, false);
    throw error;
  }
  if (resuming && !response.ok)
    onBroken?.(new Error(`resuming the stream failed: HTTP ${response.status}`), false);
  const body = response.body;
  const type = response.headers.get('content-type') ?? '';
  if (onBroken === undefined || body === null || !type.startsWith('text/event-stream')) return response;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let tail = '\n';
  let resumable = false;
  const watched = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else {
          const text = tail + decoder.decode(value, { stream: true });
          resumable ||= /\nid:/.test(text);
          tail = text.slice(-3);
          controller.enqueue(value);
        }
      } catch (error) {
        if (init?.signal?.aborted !== true) onBroken(error, resumable);
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(watched, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

export interface ConnectionEvents {
  /** The tool list changed (`notifications/tools/list_changed`, already re-listed). */
  onTools(tools: readonly McpTool[]): void;
  /** The connection ended, for whatever reason; `why` is for people. */
  onLost(connection: LiveConnection, why: string): void;
  /** The roots to advertise now. */
  roots(): readonly McpRoot[];
  /** The tool call a server→client request (sampling, elicitation) belongs to, when known. */
  currentCall(): ToolContext | undefined;
}

/**
 * One established connection: an SDK client over a fresh transport, its first tool
 * listing, and (stdio) the process behind it. It never reconnects itself; it reports its
 * end once through `onLost`.
 */
export class LiveConnection {
  readonly client: Client;
  readonly #transport: ChildProcessTransport | StreamableHTTPClientTransport;
  readonly #events: ConnectionEvents;
  readonly #options: ResolvedOptions;
  #watchdog: CancelWatchdog | undefined;
  #lost = false;
  /** Set when we end the connection on purpose, so `onLost` says why. */
  #endReason: string | undefined;
  tools: readonly McpTool[] = [];
  latencyMs: number | undefined;

  private constructor(options: ResolvedOptions, mode: VersionNegotiationMode, events: ConnectionEvents) {
    this.#options = options;
    this.#events = events;
    this.client = new Client(CLIENT_INFO, {
      capabilities: clientCapabilities(options.clientRequests),
      versionNegotiation: { mode, probe: { timeoutMs: options.connectTimeoutMs } },
      listChanged: {
        tools: {
          debounceMs: 20,
          onChanged: (error, tools) => {
            if (error === null && tools !== null) events.onTools(tools);
          },
        },
      },
    });
    registerClientRequests(this.client, options.clientRequests, events.roots, events.currentCall);
    this.#transport = this.#makeTransport();
  }

  /**
   * Connects and lists the tools, or throws (and leaves nothing running). An OAuth server
   * that needs the user's authorization first is retried once after `authorizationCallback`.
   */
  static async open(options: ResolvedOptions, events: ConnectionEvents): Promise<LiveConnection> {
    const mode = negotiation(options.protocol);
    // The last connection tried: its transport redeems an authorization code (it knows the server's metadata).
    let tried: LiveConnection | undefined;
    const seen = (connection: LiveConnection): void => void (tried = connection);
    try {
      return await LiveConnection.#openNegotiating(options, mode, events, seen);
    } catch (thrown) {
      if (!isUnauthorized(thrown) || tried === undefined || !(await tried.reauthorize())) throw thrown;
      return LiveConnection.#openNegotiating(options, mode, events, seen);
    }
  }

  static async #openNegotiating(
    options: ResolvedOptions,
    mode: VersionNegotiationMode,
    events: ConnectionEvents,
    seen: (connection: LiveConnection) => void,
  ): Promise<LiveConnection> {
    try {
      return await LiveConnection.#openWith(options, mode, events, seen);
    } catch (thrown) {
      // A stdio server that exits on the `server/discover` probe is a 2025-era server.
      const negotiationFailed =
        SdkError.isInstance(thrown) && (thrown as SdkError).code === SdkErrorCode.EraNegotiationFailed;
      if (mode !== 'auto' || !negotiationFailed) throw thrown;
      return LiveConnection.#openWith(options, 'legacy', events, seen);
    }
  }

  static async #openWith(
    options: ResolvedOptions,
    mode: VersionNegotiationMode,
    events: ConnectionEvents,
    seen: (connection: LiveConnection) => void,
  ): Promise<LiveConnection> {
    const connection = new LiveConnection(options, mode, events);
    seen(connection);
    try {
      await connection.#start();
      return connection;
    } catch (thrown) {
      connection.#endReason = 'connect failed';
      await connection.close();
      throw thrown;
    }
  }

  /**
   * After a call failed with `UnauthorizedError` (e.g. a step-up to more scope): waits for the
   * user's authorization and redeems it. `false` when there is nothing to wait for.
   */
  async reauthorize(): Promise<boolean> {
    const t = this.#options.transport;
    if (t.kind !== 'http' || !(this.#transport instanceof StreamableHTTPClientTransport)) return false;
    return completeAuthorization(t.auth, this.#transport);
  }

  get pid(): number | undefined {
    return this.#transport instanceof ChildProcessTransport ? (this.#transport.pid ?? undefined) : undefined;
  }

  /** The version the server gave in its `serverInfo` (the version of its imported tools' definitions). */
  get serverVersion(): string | undefined {
    return this.client.getServerVersion()?.version;
  }

  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  /** 2025-era streams carry event ids and are resumed; on 2026-07-28 a closed stream means cancel. */
  get resumesStreams(): boolean {
    const version = this.protocolVersion;
    return version !== undefined && version <= '2025-11-25';
  }

  get lost(): boolean {
    return this.#lost;
  }

  /** A timed, side-effect-free `tools/list` round trip; updates `tools` and `latencyMs`. */
  async list(timeoutMs: number, signal?: AbortSignal): Promise<readonly McpTool[]> {
    const started = this.#options.deps.now();
    const { tools } = await this.client.listTools(undefined, {
      cacheMode: 'bypass',
      timeout: timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    this.latencyMs = this.#options.deps.now() - started;
    this.tools = tools;
    return tools;
  }

  /** Ends the connection on purpose: pending calls fail at once. */
  async end(why: string): Promise<void> {
    this.#endReason ??= why;
    await this.close();
  }

  /** Stops a stdio server that will not stop by itself: SIGTERM, then SIGKILL. */
  async terminate(why: string): Promise<void> {
    this.#endReason ??= why;
    if (this.#transport instanceof ChildProcessTransport)
      await this.#transport.terminate(this.#options.killGraceMs);
    else await this.close();
  }

  async close(): Promise<void> {
    this.#watchdog?.stop();
    await this.client.close().catch(() => undefined);
  }

  async #start(): Promise<void> {
    const transport = this.#transport;
    transport.onclose = () => this.#onClosed();
    transport.onerror = (error) => {
      if (error instanceof MalformedMessageError) void this.terminate(`protocol violation: ${error.message}`);
    };
    if (transport instanceof ChildProcessTransport) {
      const watchdog = new CancelWatchdog(
        this.#options.cancelGraceMs,
        this.#options.deps,
        (timeoutMs) => this.list(timeoutMs),
        (why) => void this.terminate(`the server ignored cancellation: ${why}`),
      );
      this.#watchdog = watchdog;
      transport.onOutbound = (message) => watchdog.outbound(message);
      transport.onInbound = (message) => watchdog.inbound(message);
    }
    await this.client.connect(transport, { timeout: this.#options.connectTimeoutMs });
    await this.list(this.#options.connectTimeoutMs);
  }

  #onClosed(): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#watchdog?.stop();
    const stderr = this.#transport instanceof ChildProcessTransport ? this.#transport.stderrTail.trim() : '';
    const why =
      this.#endReason ??
      (stderr === '' ? 'the server closed the connection' : `the server exited: ${stderr.slice(-300)}`);
    this.#events.onLost(this, why);
  }

  #makeTransport(): ChildProcessTransport | StreamableHTTPClientTransport {
    const t = this.#options.transport;
    if (t.kind === 'stdio') {
      return new ChildProcessTransport(
        {
          command: t.command,
          args: t.args ?? [],
          env: t.env,
          cwd: t.cwd,
          killGraceMs: this.#options.killGraceMs,
        },
        this.#options.deps,
      );
    }
    return new StreamableHTTPClientTransport(new URL(t.url), {
      fetch: watchedFetch,
      ...(t.auth === undefined ? {} : { authProvider: t.auth.provider }),
      // 2025-era: a broken response stream with event ids is resumed, soon and a few times.
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 2_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 3,
      },
      requestInit: { headers: { ...t.headers } },
    });
  }
}

function negotiation(choice: ProtocolChoice): VersionNegotiationMode {
  return typeof choice === 'string' ? choice : { pin: choice.pin };
}
