import { serve as nodeServe, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { withDirectSse } from './sse-direct.js';

export interface ServeOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default `127.0.0.1`: listen on all interfaces only when you mean it. */
  readonly host?: string;
}

export interface RunningServer {
  readonly port: number;
  readonly url: string;
  readonly server: ServerType;
  /** Stops accepting, closes open connections (SSE streams end, which cancels their runs). */
  close(): Promise<void>;
}

/**
 * Serves a hono app on Node (`@hono/node-server`); resolves once it listens. Run streams are
 * written straight to Node's response (`withDirectSse`).
 */
export function serve(app: Pick<Hono, 'fetch'>, options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = nodeServe(
      { fetch: withDirectSse(app.fetch), port: options.port, hostname: host },
      (info: AddressInfo) => {
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`;
        resolve({
          port: info.port,
          url,
          server,
          close: () =>
            new Promise<void>((done) => {
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
              server.close(() => done());
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
