import { serve } from '@hono/node-server';
import { RequestGate } from '@reins/server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { describeConfig, type KitchenConfig } from '../config.js';
import { createKitchenApp } from '../http/app.js';
import { DEMO_USERS } from '../seed/demo-data.js';
import type { CliIo } from './io.js';
import { openKitchen } from './open-app.js';
import { assertPortFree, portError } from './port-check.js';

export interface RunningKitchen {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the REST API on 127.0.0.1; demo logins are printed on the embedded default only. */
export async function startKitchen(config: KitchenConfig, io: CliIo): Promise<RunningKitchen> {
  await assertPortFree(config.host, config.port);
  const { db, services, seeded } = await openKitchen(config);
  const api = createKitchenApp({
    services,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    trustProxy: config.trustProxy,
  });
  // On SIGTERM: new requests get 503; writes being answered finish before the database closes.
  const requests = new RequestGate();
  const app = new Hono();
  app.use('*', requests.middleware);
  app.all('*', (c) => api.fetch(c.req.raw, c.env));
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  }).catch(async (error: unknown) => {
    await db.close();
    throw portError(error, config.port);
  });
  const url = `http://${config.host}:${(server.address() as AddressInfo).port}`;
  io.out(
    `Xiaojia Kitchen API on ${url}  (${describeConfig(config)}${seeded ? ', demo data seeded now' : ''})`,
  );
  if (db.backend === 'pglite' && config.seed === 'demo') {
    io.out('Demo logins (embedded default only; change them with `admin reset-password`):');
    for (const u of DEMO_USERS)
      io.out(`  ${u.username.padEnd(10)} ${u.password.padEnd(15)} ${u.displayName}`);
    io.out(`Try: curl -s ${url}/api/auth/login -H 'content-type: application/json' \\`);
    io.out(`       -d '{"username":"xiaojia","password":"demo-xiaojia"}'`);
  }
  return {
    url,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      requests.close();
      await requests.whenIdle(config.drainGraceMs);
      if ('closeAllConnections' in server) server.closeAllConnections();
      await closed;
      await db.close();
    },
  };
}
