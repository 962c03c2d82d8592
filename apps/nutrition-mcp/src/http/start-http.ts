import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createNutritionService, type NutritionService } from '../service/nutrition-service.js';
import { tokenProblem } from './bearer-token.js';
import { createHttpApp, type HttpAppOptions } from './http-app.js';

export interface StartHttpOptions extends Omit<HttpAppOptions, 'service'> {
  /** Default 8788; 0 picks a free port. */
  readonly port?: number;
  /**
   * Default 127.0.0.1: not reachable from other machines unless asked — and then only with a
   * `token` (refused otherwise).
   */
  readonly host?: string;
  /** Default: a service over the shipped table with an in-process cache. */
  readonly service?: NutritionService;
}

export interface RunningHttpServer {
  /** Base URL, e.g. `http://127.0.0.1:8788`; MCP at `${url}/mcp`, health at `${url}/health`. */
  readonly url: string;
  readonly port: number;
  readonly service: NutritionService;
  /** Stops listening and ends open connections; closes the service too if `startHttp` made it. */
  close(): Promise<void>;
}

export const DEFAULT_PORT = 8788;
export const DEFAULT_HOST = '127.0.0.1';

export async function startHttp(options: StartHttpOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_HOST;
  const refused = tokenProblem(host, options.token);
  if (refused !== undefined) throw new Error(refused);
  const ownsService = options.service === undefined;
  const service = options.service ?? createNutritionService();
  const app = createHttpApp({ ...options, service });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? DEFAULT_PORT, hostname: host }, () =>
      resolve(s),
    );
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    service,
    close: async () => {
      await app.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      if (ownsService) await service.close();
    },
  };
}
