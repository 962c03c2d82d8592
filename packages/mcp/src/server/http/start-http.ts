import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { McpToolServer } from '../tool-server.js';
import { createMcpHttpApp, type McpHttpOptions } from './http-app.js';

export interface StartMcpHttpOptions extends McpHttpOptions {
  /** Default 0: a free port. */
  readonly port?: number;
  /** Default 127.0.0.1: not reachable from other machines unless asked. */
  readonly host?: string;
}

export interface RunningMcpHttp {
  /** Base URL, e.g. `http://127.0.0.1:8790`; MCP at `${url}/mcp`, health at `${url}/health`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening, closes sessions and ends open connections. */
  close(): Promise<void>;
}

/** Serves the tool server over Streamable HTTP on Node (`@hono/node-server`). */
export async function startMcpHttp(
  server: McpToolServer,
  options: StartMcpHttpOptions,
): Promise<RunningMcpHttp> {
  const host = options.host ?? '127.0.0.1';
  const app = createMcpHttpApp(server, options);
  const listening = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
  const sweepMs = Math.max(1_000, Math.min(60_000, (options.sessionIdleMs ?? 600_000) / 2));
  const sweeper = setInterval(() => app.expireIdleSessions(), sweepMs);
  sweeper.unref();
  const port = (listening.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: async () => {
      clearInterval(sweeper);
      await app.close();
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        if ('closeAllConnections' in listening) listening.closeAllConnections();
      });
    },
  };
}
