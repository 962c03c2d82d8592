import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  readRequestBody,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import type { Principal } from 'reins';
import type { McpToolServer } from '../tool-server.js';
import { authenticateRequest, type Authenticate } from './authenticate.js';
import { checkDependencies, type HealthProbe, type HealthReport } from './health.js';
import { INVALID_REQUEST, jsonRpcError, PARSE_ERROR } from './json-rpc-errors.js';
import { LegacySessions } from './legacy-sessions.js';

export interface McpHttpOptions {
  /** Bearer token → principal (401 otherwise), or `'none'`: every request runs as `principal`. */
  readonly authenticate: Authenticate | 'none';
  /** The principal when `authenticate` is `'none'`. Default `ANONYMOUS`. */
  readonly principal?: Principal;
  /** Host header names accepted (DNS-rebinding guard). Default: localhost, 127.0.0.1, [::1]. */
  readonly allowedHosts?: readonly string[];
  /** Origin host names accepted when a browser sends one. Default: the localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** Largest POST body read. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** 2025-era sessions: closed after this long without a request. Default 10 min. */
  readonly sessionIdleMs?: number;
  /** 2025-era sessions open at once. Default 100. */
  readonly maxSessions?: number;
  /**
   * 2025-era sessions one principal may hold (with `authenticate: 'none'` every client is the
   * same principal). Its next `initialize` closes its session idle longest (idle: no POST being
   * answered; a listening GET stream does not count), or gets 429 when all are busy. Default 10.
   */
  readonly maxSessionsPerPrincipal?: number;
  /**
   * Messages in one JSON-RPC batch (a POST whose body is an array), either revision: a
   * bigger batch is refused with 400 and JSON-RPC `-32600` before any of it runs. Default 10.
   */
  readonly maxBatchSize?: number;
  /**
   * 2025-era sessions: SSE events kept (in memory, per session) so a client can resume a
   * broken response stream with `Last-Event-ID`. Default 1,000.
   */
  readonly maxResumableEvents?: number;
  /** Dependencies `/health` reports (`degraded` when one is down), each probe bounded by `healthTimeoutMs`. */
  readonly dependencies?: Readonly<Record<string, HealthProbe>>;
  /** Default 2 s. */
  readonly healthTimeoutMs?: number;
  /**
   * Where change events for 2026 `subscriptions/listen` streams come from (e.g. an app's
   * tool list changed); default: an in-process bus.
   */
  readonly bus?: ServerEventBus;
  readonly now?: () => number;
  readonly newSessionId?: () => string;
}

export interface McpHttpApp {
  /** Web-standard handler: `GET /health`, `/mcp` (Streamable HTTP, 2025-11-25 sessionful and 2026-07-28). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Expires idle 2025-era sessions now (also done on every request and by `startMcpHttp`'s timer). */
  expireIdleSessions(): void;
  close(): Promise<void>;
}

export function createMcpHttpApp(server: McpToolServer, options: McpHttpOptions): McpHttpApp {
  const allowedHosts = [...(options.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [...(options.allowedOrigins ?? localhostAllowedOrigins())];
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxBatchSize = positiveWhole('maxBatchSize', options.maxBatchSize ?? 10);
  const factory = server.factory(options.principal);
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize: maxBodyBytes,
    ...(options.bus === undefined ? {} : { bus: options.bus }),
  });
  const sessions = new LegacySessions(factory, {
    idleMs: options.sessionIdleMs ?? 10 * 60_000,
    maxSessions: options.maxSessions ?? 100,
    maxSessionsPerPrincipal: positiveWhole('maxSessionsPerPrincipal', options.maxSessionsPerPrincipal ?? 10),
    now: options.now ?? Date.now,
    newSessionId: options.newSessionId ?? randomUUID,
    maxResumableEvents: options.maxResumableEvents ?? 1_000,
  });
  const app = new Hono();

  // Every route: a page on another site must not reach this server through a rebound DNS name.
  app.use('*', async (c, next) => {
    const refused =
      hostHeaderValidationResponse(c.req.raw, allowedHosts) ??
      originValidationResponse(c.req.raw, allowedOrigins);
    if (refused !== undefined) return refused;
    await next();
  });

  app.get('/health', async (c) => {
    const dependencies = await checkDependencies(
      options.dependencies ?? {},
      options.healthTimeoutMs ?? 2_000,
    );
    const report: HealthReport = {
      status: Object.values(dependencies).every((s) => s === 'up') ? 'ok' : 'degraded',
      name: server.name,
      version: server.version,
      tools: server.toolNames.length,
      sessions: sessions.size,
      dependencies,
    };
    return c.json(report);
  });

  app.all('/mcp', async (c) => {
    const request = c.req.raw;
    const auth = await authenticateRequest(request, options.authenticate);
    if (!auth.ok) return auth.response;
    const authInfo = auth.authInfo;
    const owner = auth.principal?.id;
    if (request.method !== 'POST') {
      // GET (standalone stream) and DELETE exist only in 2025-era sessions.
      if (request.headers.has('mcp-session-id')) return sessions.handle(request, undefined, authInfo, owner);
      return modern.fetch(request, authInfo === undefined ? {} : { authInfo });
    }
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > maxBodyBytes) return tooLarge(maxBodyBytes);
    const body = await readRequestBody(request, maxBodyBytes);
    if (body.tooLarge) return tooLarge(maxBodyBytes);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(body.text);
    } catch {
      return jsonRpcError(400, PARSE_ERROR, 'Parse error: the request body is not valid JSON');
    }
    // Checked here, before the revision is told apart: the same cap on both.
    if (Array.isArray(parsedBody) && parsedBody.length > maxBatchSize) {
      return jsonRpcError(
        400,
        INVALID_REQUEST,
        `Invalid Request: a JSON-RPC batch may hold at most ${maxBatchSize} messages; this one has ${parsedBody.length}`,
      );
    }
    const passOn = { parsedBody, ...(authInfo === undefined ? {} : { authInfo }) };
    if (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: maxBodyBytes })) {
      return sessions.handle(request, parsedBody, authInfo, owner);
    }
    return modern.fetch(request, passOn);
  });

  app.notFound((c) =>
    c.json({ error: { code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}` } }, 404),
  );
  app.onError(() => jsonRpcError(500, INVALID_REQUEST, 'Internal error'));

  return {
    fetch: (request) => Promise.resolve(app.fetch(request)),
    expireIdleSessions: () => sessions.expireIdle(),
    close: async () => {
      await sessions.closeAll();
      await modern.close();
    },
  };
}

function tooLarge(maxBodyBytes: number): Response {
  return jsonRpcError(413, INVALID_REQUEST, `Request body over ${maxBodyBytes} bytes`);
}

/** A count option: a zero, negative or fractional one would refuse everything or nothing. */
function positiveWhole(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of at least 1, got ${String(value)}`);
  }
  return value;
}
