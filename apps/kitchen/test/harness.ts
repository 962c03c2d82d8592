import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Db } from '../src/db/db.js';
import { createKitchenApp } from '../src/http/app.js';
import { seedDemo } from '../src/seed/seed.js';
import type { ServiceDeps } from '../src/services/env.js';
import { createKitchenServices, type KitchenServices } from '../src/services/kitchen-services.js';
import type { KitchenPrincipal } from '../src/services/principal.js';
import { BACKENDS, type Backend } from './backends.js';

/** 2026-05-01 12:00 in Shanghai: a fixed "now" so expiry dates and weeks are predictable. */
export const START = new Date('2026-05-01T04:00:00Z');
export const TODAY = '2026-05-01';

export interface TestClock {
  now: Date;
  advance(ms: number): void;
}

export interface HttpReply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

export interface Harness {
  readonly backend: Backend['name'];
  readonly db: Db;
  readonly services: KitchenServices;
  readonly clock: TestClock;
  readonly url: string;
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<HttpReply>;
  /** Signs a demo user in (password `demo-<username>`) and returns the bearer token. */
  login(username: string): Promise<string>;
  /** The trusted principal of a demo user in their first household (as a fresh login would have it). */
  principal(username: string): Promise<KitchenPrincipal>;
  householdId(name: string): Promise<string>;
}

/**
 * Runs `suite` once per backend with a seeded database, the services over it and the REST API
 * on 127.0.0.1 — one database per backend per test file.
 */
export function describeEachBackend(
  title: string,
  suite: (h: () => Harness) => void,
  only?: Backend['name'],
): void {
  for (const backend of BACKENDS.filter((b) => only === undefined || b.name === only)) {
    describe.skipIf(backend.skip)(`${title} [${backend.name}]`, () => {
      let harness: Harness | undefined;
      let close: (() => Promise<void>) | undefined;
      beforeAll(async () => {
        const opened = await backend.open();
        const clock: TestClock = {
          now: new Date(START),
          advance(ms) {
            this.now = new Date(this.now.getTime() + ms);
          },
        };
        const deps: ServiceDeps = { db: opened.db, clock: () => clock.now };
        await seedDemo(deps);
        const services = createKitchenServices(deps);
        const app = createKitchenApp({ services, maxBodyBytes: 16 * 1024, reportError: () => undefined });
        const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
          const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
        });
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        close = async () => {
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            if ('closeAllConnections' in server) server.closeAllConnections();
          });
          await opened.dispose();
        };
        const request: Harness['request'] = async (method, path, options = {}) => {
          const headers: Record<string, string> = { ...options.headers };
          if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
          let body: string | undefined = options.rawBody;
          if (options.body !== undefined) body = JSON.stringify(options.body);
          // Every write is JSON, a body-less one too (logout, DELETE): the app refuses others (415).
          if (method !== 'GET' && method !== 'HEAD') headers['content-type'] ??= 'application/json';
          const response = await fetch(`${url}${path}`, {
            method,
            headers,
            ...(body === undefined ? {} : { body }),
          });
          const text = await response.text();
          return {
            status: response.status,
            body: text === '' ? null : (JSON.parse(text) as unknown),
            headers: response.headers,
          };
        };
        const householdId = async (name: string) => {
          const rows = await opened.db.query<{ id: string }>('SELECT id FROM households WHERE name = $1', [
            name,
          ]);
          if (rows[0] === undefined) throw new Error(`no household ${name}`);
          return rows[0].id;
        };
        harness = {
          backend: backend.name,
          db: opened.db,
          services,
          clock,
          url,
          request,
          householdId,
          login: async (username) => {
            const reply = await request('POST', '/api/auth/login', {
              body: { username, password: `demo-${username}` },
            });
            if (reply.status !== 200) throw new Error(`login ${username}: ${reply.status}`);
            return (reply.body as { token: string }).token;
          },
          principal: async (username) => {
            const { session } = await services.auth.login({ username, password: `demo-${username}` });
            return session.principal;
          },
        };
      }, 60_000);
      afterAll(async () => {
        await close?.();
      });
      suite(() => {
        if (harness === undefined) throw new Error('harness not ready');
        return harness;
      });
    });
  }
}
