import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type RunningServer } from '@reins/server';
import { scriptModel } from 'reins/testing';
import { readConfig } from '../src/config.js';
import { createKitchenServer, type KitchenServer } from '../src/server/kitchen-server.js';
import { webAssets, WEB_CSP } from '../src/http/web-assets.js';
import { describeEachBackend } from './harness.js';
import { guardHeaders, rawRequest, type RawReply } from './raw-http.js';
import { capturedLogger } from './server-helpers.js';

const GUARDED = { nosniff: 'nosniff', frame: 'DENY', referrer: 'no-referrer', frameAncestors: true };

describeEachBackend(
  'security headers and the Host check on the kitchen origin (issue 16.7)',
  (harness) => {
    let root: string;
    let kitchen: KitchenServer;
    let running: RunningServer;
    let token: string;
    let port: string;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'kitchen-headers-'));
      await mkdir(join(root, 'assets'));
      await writeFile(join(root, 'index.html'), '<!doctype html><title>kitchen</title>');
      await writeFile(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
      kitchen = createKitchenServer({
        services: harness().services,
        model: scriptModel([JSON.stringify({ thought: 'done', final: 'ok' })]),
        nutrition: () => Promise.resolve(null),
        logger: capturedLogger().logger,
        allowedHosts: ['kitchen.example'],
        extend: (app) => {
          app.get('/boom', () => {
            throw new Error('a bug');
          });
          app.use('*', webAssets({ root }));
        },
      });
      running = await serve(kitchen.app, { port: 0 });
      port = new URL(running.url).port;
      token = await harness().login('xiaojia');
    });
    afterAll(async () => {
      await kitchen.close();
      await running.close();
      await rm(root, { recursive: true, force: true });
    });

    const get = (path: string, headers: Record<string, string> = {}) =>
      rawRequest(`${running.url}${path}`, { headers });
    const auth = () => ({ authorization: `Bearer ${token}` });
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      rawRequest(`${running.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth(), ...headers },
        body,
      });

    it('every response class carries them; authenticated data and errors are no-store', async () => {
      const replies: [string, number, RawReply][] = [
        ['/api JSON', 200, await get('/api/fridge', auth())],
        ['/api 401', 401, await get('/api/fridge')],
        ['/api 404', 404, await get('/api/nope', auth())],
        ['/api 413', 413, await post('/api/fridge', JSON.stringify({ name: 'x'.repeat(70_000) }))],
        ['/v1 JSON', 200, await get('/v1/agents', auth())],
        ['/v1 401', 401, await get('/v1/agents')],
        [
          '/v1 SSE',
          200,
          await post('/v1/runs', '{"agent":"kitchen","input":"hi"}', { accept: 'text/event-stream' }),
        ],
        ['/health', 200, await get('/health')],
        ['/metrics', 200, await get('/metrics')],
        ['500', 500, await get('/boom')],
      ];
      for (const [name, status, reply] of replies) {
        expect({ name, status: reply.status, ...guardHeaders(reply.headers) }).toEqual({
          name,
          status,
          ...GUARDED,
          cache: 'no-store',
        });
      }
      const sse = replies.find(([name]) => name === '/v1 SSE')?.[2];
      expect(sse?.headers['content-type']).toContain('text/event-stream');
    });

    it('the page keeps its full CSP and revalidation, its hashed files their long caching', async () => {
      const page = await get('/', { accept: 'text/html' });
      expect({ status: page.status, ...guardHeaders(page.headers) }).toEqual({
        status: 200,
        ...GUARDED,
        cache: 'no-cache',
      });
      expect(page.headers['content-security-policy']).toBe(WEB_CSP);
      const asset = await get('/assets/index-abc.js');
      expect({ status: asset.status, ...guardHeaders(asset.headers) }).toEqual({
        status: 200,
        ...GUARDED,
        cache: 'public, max-age=31536000, immutable',
      });
    });

    it('a foreign Host (DNS rebinding) gets 421 on /api, /v1, /health and the page; allowed names pass', async () => {
      const evil = { ...auth(), host: `evil.example:${port}`, accept: 'text/html' };
      for (const path of [
        '/api/fridge',
        '/api/auth/login',
        '/v1/agents',
        '/health',
        '/',
        '/assets/index-abc.js',
      ]) {
        const reply = await get(path, evil);
        expect({ path, status: reply.status, ...guardHeaders(reply.headers) }).toEqual({
          path,
          status: 421,
          ...GUARDED,
          cache: 'no-store',
        });
        expect(JSON.parse(reply.body)).toMatchObject({ error: { code: 'MISDIRECTED_REQUEST' } });
      }
      const refusedPost = await post('/v1/runs', '{"agent":"kitchen","input":"hi"}', {
        host: 'evil.example',
      });
      expect(refusedPost.status).toBe(421);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'kitchen.example:443']) {
        expect({ host, status: (await get('/api/fridge', { ...auth(), host })).status }).toEqual({
          host,
          status: 200,
        });
      }
    });
  },
  'pglite',
);

it('REINS_ALLOWED_HOSTS: a comma-separated list of names, checked at start', () => {
  expect(readConfig({}).allowedHosts).toEqual([]);
  expect(readConfig({ REINS_ALLOWED_HOSTS: ' Kitchen.Example, api.example:8443 ,' }).allowedHosts).toEqual([
    'kitchen.example',
    'api.example:8443',
  ]);
  expect(() => readConfig({ REINS_ALLOWED_HOSTS: 'http://kitchen.example/' })).toThrow(/REINS_ALLOWED_HOSTS/);
});
