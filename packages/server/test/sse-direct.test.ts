import { serve as nodeServe, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { createReinsServer, serve, withDirectSse, type ReinsServer } from '@reins/server';
import { act, as, bearerAuth, countingAdd, final, memoryLogger, openSse, shape } from './helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function reinsServer(): ReinsServer {
  const { tool } = countingAdd();
  const server = createReinsServer({
    authenticate: bearerAuth,
    logger: memoryLogger('silent').logger,
    agents: { helper: { model: scriptModel([act('add', { a: 1, b: 2 }), final('3')]), tools: [tool] } },
  });
  closers.push(() => server.close());
  return server;
}

/**
 * The reins app inside another app, as the kitchen mounts it: a middleware of the outer app
 * sets a header after the inner app answered (a direct response must still carry it).
 */
function mounted(server: ReinsServer): Hono {
  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    c.header('X-Outer', 'set after the handler');
  });
  app.all('*', (c) => server.app.fetch(c.req.raw, c.env));
  return app;
}

/** Serves `fetch` with @hono/node-server as is (no `withDirectSse`: hono's streamSSE path). */
async function plainServe(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
): Promise<string> {
  const server = await new Promise<ServerType>((resolve) => {
    const s: ServerType = nodeServe({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  closers.push(
    () =>
      new Promise<void>((done) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => done());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function directServe(app: Pick<Hono, 'fetch'>): Promise<string> {
  const running = await serve(app, { port: 0, host: '127.0.0.1' });
  closers.push(() => running.close());
  return running.url;
}

async function sseRun(url: string) {
  const client = await openSse(`${url}/v1/runs`, {
    body: { agent: 'helper', input: 'what is 1 + 2?' },
    headers: { ...as('alice'), origin: url },
  });
  await client.ended;
  const headers = { ...client.response.headers };
  delete headers.date;
  if (typeof headers['x-run-id'] === 'string') headers['x-run-id'] = '(a run id)'; // a new run each time
  return { client, headers };
}

describe('SSE written straight to Node (serve / withDirectSse)', () => {
  it('sends the same headers and frames as hono streamSSE, on a mounted app too', async () => {
    const wraps: ((s: ReinsServer) => Pick<Hono, 'fetch'>)[] = [(s) => s.app, mounted];
    for (const wrap of wraps) {
      const direct = await sseRun(await directServe(wrap(reinsServer())));
      const viaHono = await sseRun(await plainServe(wrap(reinsServer()).fetch));
      expect(direct.headers).toEqual(viaHono.headers);
      expect(direct.headers).toMatchObject({
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'transfer-encoding': 'chunked',
      });
      expect(direct.headers['content-security-policy']).toBeDefined();
      expect(direct.headers['x-reins-direct-sse']).toBeUndefined();
      const frames = (run: typeof direct) => run.client.frames.map((f) => [f.id, f.event, f.lines.length]);
      expect(frames(direct)).toEqual(frames(viaHono));
      expect(shape(direct.client.events)).toEqual([
        'start',
        'step:reason',
        'step:act',
        'step:observe',
        'step:reason',
        'message',
        'done',
      ]);
    }
    const mountedHeaders = (await sseRun(await directServe(mounted(reinsServer())))).headers;
    expect(mountedHeaders['x-outer']).toBe('set after the handler');
  });

  it('serve() answers a run stream directly, without a web stream body', async () => {
    const server = reinsServer();
    const direct = withDirectSse(server.app.fetch);
    const answered: Response[] = [];
    const url = await plainServe(async (request, env) => {
      const response = await direct(request, env);
      answered.push(response);
      return response;
    });
    const { client } = await sseRun(url);
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(answered).toHaveLength(1);
    expect(answered[0]?.body).toBeNull();
    expect(answered[0]?.headers.get('x-hono-already-sent')).toBe('1');
  });

  it('a stream with nothing to send yet gets its headers at once, not with the first keep-alive', async () => {
    const server = createReinsServer({
      authenticate: bearerAuth,
      logger: memoryLogger('silent').logger,
      agents: { slow: { model: scriptModel([{ text: final('late'), delayMs: 30_000 }]), tools: [] } },
      limits: { keepAliveMs: 60_000 },
    });
    closers.push(() => server.close());
    const url = await directServe(server.app);
    const first = await openSse(`${url}/v1/runs`, {
      body: { agent: 'slow', input: 'hi' },
      headers: as('alice'),
    });
    await first.waitFor((f) => f.event === 'start');
    const runId = String(first.response.headers['x-run-id']);
    // Following from the start event: nothing more to send while the model thinks (30 s).
    const follow = openSse(`${url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': '0' },
    });
    const timedOut = new Promise<'no headers'>((resolve) => setTimeout(() => resolve('no headers'), 5_000));
    const second = await Promise.race([follow, timedOut]);
    expect(second).not.toBe('no headers');
    if (second === 'no headers') return;
    expect(second.response.headers['content-type']).toBe('text/event-stream');
    expect(second.frames).toEqual([]);
    second.destroy();
    first.destroy();
  });

  it('a JSON answer through withDirectSse is the app’s own response', async () => {
    const server = reinsServer();
    const url = await plainServe(withDirectSse(server.app.fetch));
    const response = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { ...as('alice'), 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'helper', input: 'what is 1 + 2?' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(((await response.json()) as { record: { status: string } }).record.status).toBe('success');
  });
});
