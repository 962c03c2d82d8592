import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  readRequestBody,
} from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { nutritionServerFactory } from '../mcp/nutrition-server.js';
import { healthOf } from '../service/health.js';
import type { NutritionService } from '../service/nutrition-service.js';
import { carriesToken } from './bearer-token.js';
import { INVALID_REQUEST, jsonRpcError, PARSE_ERROR, UNAUTHORIZED } from './json-rpc-errors.js';

export interface HttpAppOptions {
  readonly service: NutritionService;
  /**
   * Host header names accepted (DNS-rebinding guard). Default: localhost, 127.0.0.1, [::1] —
   * and any host when a `token` is required: a page on a rebound name cannot present the
   * token, and clients on other machines name the server by its own address.
   */
  readonly allowedHosts?: readonly string[];
  /** Origin host names accepted when a browser sends one. Default: the localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** Largest POST body read. Default 64 KiB: a tool call here is a few hundred bytes. */
  readonly maxBodyBytes?: number;
  /**
   * When set, every `/mcp` request must carry `Authorization: Bearer <token>` (401 otherwise);
   * `/health` stays open for probes. Required by `startHttp` on a host other than loopback.
   */
  readonly token?: string;
}

export interface HttpApp {
  /** Web-standard handler: `GET /health`, `POST /mcp` (Streamable HTTP, both MCP revisions). */
  readonly fetch: (request: Request) => Promise<Response>;
  close(): Promise<void>;
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const anyHost = options.allowedHosts === undefined && options.token !== undefined;
  const allowedHosts = [...(options.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [...(options.allowedOrigins ?? localhostAllowedOrigins())];
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const mcp = createMcpHandler(nutritionServerFactory(options.service), { maxRequestBodySize: maxBodyBytes });
  const app = new Hono();

  // Every route: a page on another site must not reach this server through a rebound DNS name.
  app.use('*', async (c, next) => {
    const refused =
      (anyHost ? undefined : hostHeaderValidationResponse(c.req.raw, allowedHosts)) ??
      originValidationResponse(c.req.raw, allowedOrigins);
    if (refused !== undefined) return refused;
    await next();
  });

  app.get('/health', (c) => c.json(healthOf(options.service)));

  app.all('/mcp', async (c) => {
    const request = c.req.raw;
    if (options.token !== undefined && !carriesToken(request.headers.get('authorization'), options.token)) {
      return jsonRpcError(
        401,
        UNAUTHORIZED,
        'Unauthorized: this server needs Authorization: Bearer <token>',
        {
          'www-authenticate': 'Bearer',
        },
      );
    }
    if (request.method !== 'POST') return mcp.fetch(request);
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > maxBodyBytes)
      return jsonRpcError(413, INVALID_REQUEST, `Request body over ${maxBodyBytes} bytes`);
    const body = await readRequestBody(request, maxBodyBytes);
    if (body.tooLarge) return jsonRpcError(413, INVALID_REQUEST, `Request body over ${maxBodyBytes} bytes`);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(body.text);
    } catch {
      return jsonRpcError(400, PARSE_ERROR, 'Parse error: the request body is not valid JSON');
    }
    return mcp.fetch(request, { parsedBody });
  });

  app.notFound((c) =>
    c.json({ error: { code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}` } }, 404),
  );

  return { fetch: (request) => Promise.resolve(app.fetch(request)), close: () => mcp.close() };
}
