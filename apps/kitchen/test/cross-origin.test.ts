import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type RunningServer } from '@reins/server';
import { scriptModel } from 'reins/testing';
import { ConfigError, readConfig } from '../src/config.js';
import { createKitchenServer, type KitchenServer } from '../src/server/kitchen-server.js';
import { describeEachBackend } from './harness.js';
import { rawRequest, type RawReply } from './raw-http.js';
import { capturedLogger } from './server-helpers.js';

/**
 * Issue 16.3 on the kitchen origin: `/api` writes (logout and login too) and `/v1` writes need
 * `Content-Type: application/json` (415) and this origin or an allowed one (403); reads are
 * untouched. The same middleware as `@reins/server`'s (`crossOriginGuard`).
 */

const FRIDGE_ITEM = JSON.stringify({ name: '跨站豆腐', quantity: 1, unit: '块' });
const code = (reply: RawReply): unknown =>
  (JSON.parse(reply.body) as { error?: { code?: string } }).error?.code;

describeEachBackend(
  'cross-origin writes on the kitchen origin (issue 16.3)',
  (harness) => {
    let kitchen: KitchenServer;
    let running: RunningServer;
    let own: string;
    let foreign: string;

    beforeAll(async () => {
      kitchen = createKitchenServer({
        services: harness().services,
        model: scriptModel([1, 2, 3].map(() => JSON.stringify({ thought: 'done', final: 'ok' }))),
        nutrition: () => Promise.resolve(null),
        logger: capturedLogger().logger,
        allowedOrigins: ['https://kitchen.example'],
      });
      running = await serve(kitchen.app, { port: 0, host: '127.0.0.1' });
      own = running.url;
      // Another 127.0.0.1 port: the same site (the SameSite=Strict cookie rides along), another origin.
      foreign = `http://127.0.0.1:${Number(new URL(own).port) + 1}`;
    });
    afterAll(async () => {
      await kitchen.close();
      await running.close();
    });

    const send = (
      method: string,
      path: string,
      token: string,
      headers: Record<string, string>,
      body?: string,
    ) =>
      rawRequest(`${own}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...headers },
        ...(body === undefined ? {} : { body }),
      });
    const json = { 'content-type': 'application/json' };
    const fridgeNames = async (token: string) => {
      const reply = await send('GET', '/api/fridge', token, {});
      return (JSON.parse(reply.body) as { items: { name: string }[] }).items.map((i) => i.name);
    };
    const sessionValid = async (token: string) =>
      (await send('GET', '/api/auth/me', token, {})).status === 200;

    it('/api writes without the JSON content type: 415 UNSUPPORTED_MEDIA_TYPE, nothing changes', async () => {
      const token = await harness().login('xiaojia');
      const plain = await send('POST', '/api/fridge', token, { 'content-type': 'text/plain' }, FRIDGE_ITEM);
      expect([plain.status, code(plain)]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      const form = await send(
        'POST',
        '/api/fridge',
        token,
        { 'content-type': 'application/x-www-form-urlencoded' },
        'name=x',
      );
      expect(form.status).toBe(415);
      expect(await fridgeNames(token)).not.toContain('跨站豆腐');
      // Body-less writes too: logout (the session stays) and DELETE.
      const logout = await send('POST', '/api/auth/logout', token, {});
      expect([logout.status, code(logout)]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      expect(await sessionValid(token)).toBe(true);
      const remove = await send('DELETE', '/api/fridge/any-id', token, {});
      expect(remove.status).toBe(415);
      const login = await rawRequest(`${own}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ username: 'xiaojia', password: 'demo-xiaojia' }),
      });
      expect(login.status).toBe(415);
    });

    it('a foreign Origin or Sec-Fetch-Site cross-site: 403 CROSS_ORIGIN on /api and /v1, nothing changes', async () => {
      const token = await harness().login('xiaojia');
      const refusals: [string, RawReply][] = [
        ['fridge', await send('POST', '/api/fridge', token, { ...json, origin: foreign }, FRIDGE_ITEM)],
        [
          'fridge cross-site',
          await send('POST', '/api/fridge', token, { ...json, 'sec-fetch-site': 'cross-site' }, FRIDGE_ITEM),
        ],
        ['logout', await send('POST', '/api/auth/logout', token, { ...json, origin: foreign })],
        [
          'logout cross-site',
          await send('POST', '/api/auth/logout', token, { ...json, 'sec-fetch-site': 'cross-site' }),
        ],
        [
          'delete',
          await send('DELETE', '/api/fridge/any-id', token, { ...json, origin: 'http://evil.example' }),
        ],
        [
          'run',
          await send(
            'POST',
            '/v1/runs',
            token,
            { ...json, origin: foreign },
            '{"agent":"kitchen","input":"hi"}',
          ),
        ],
        [
          'run cross-site',
          await send('POST', '/v1/runs', token, { ...json, 'sec-fetch-site': 'cross-site' }, '{}'),
        ],
        ['cancel', await send('POST', '/v1/runs/r-1/cancel', token, { ...json, origin: foreign })],
        ['forget', await send('DELETE', '/v1/conversations/c-1', token, { ...json, origin: foreign })],
      ];
      for (const [name, reply] of refusals)
        expect({ name, status: reply.status, code: code(reply) }).toEqual({
          name,
          status: 403,
          code: 'CROSS_ORIGIN',
        });
      expect(await fridgeNames(token)).not.toContain('跨站豆腐');
      expect(await sessionValid(token)).toBe(true);
      const conversations = await send('GET', '/v1/conversations', token, {});
      expect(JSON.parse(conversations.body)).toEqual({ conversations: [] });
    });

    it('reads are not checked: GET /api and /v1 from a foreign origin, cross-site, any type', async () => {
      const token = await harness().login('xiaojia');
      const foreignRead = { origin: foreign, 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' };
      expect((await send('GET', '/api/fridge', token, foreignRead)).status).toBe(200);
      expect((await send('GET', '/v1/agents', token, foreignRead)).status).toBe(200);
      expect((await send('GET', '/health', token, foreignRead)).status).toBe(200);
    });

    it('the own origin, an allowlisted origin and curl (neither header) may write; logout then ends the session', async () => {
      const token = await harness().login('xiaojia');
      const sameOrigin = await send('POST', '/api/fridge', token, { ...json, origin: own }, FRIDGE_ITEM);
      expect(sameOrigin.status).toBe(201);
      const sameOriginFetch = await send(
        'POST',
        '/api/fridge',
        token,
        { ...json, 'sec-fetch-site': 'same-origin' },
        FRIDGE_ITEM,
      );
      expect(sameOriginFetch.status).toBe(201);
      const allowed = await send(
        'POST',
        '/api/fridge',
        token,
        { ...json, origin: 'https://kitchen.example', 'sec-fetch-site': 'cross-site' },
        FRIDGE_ITEM,
      );
      expect(allowed.status).toBe(201);
      const curl = await send('POST', '/api/fridge', token, json, FRIDGE_ITEM);
      expect(curl.status).toBe(201);
      const run = await send(
        'POST',
        '/v1/runs',
        token,
        { ...json, origin: own },
        '{"agent":"kitchen","input":"hi"}',
      );
      expect(run.status).toBe(200);
      const allowedRun = await send(
        'POST',
        '/v1/runs',
        token,
        { ...json, origin: 'https://kitchen.example' },
        '{"agent":"kitchen","input":"hi"}',
      );
      expect(allowedRun.status).toBe(200);

      expect((await send('POST', '/api/auth/logout', token, { ...json, origin: own })).status).toBe(204);
      expect(await sessionValid(token)).toBe(false);
    });
  },
  'pglite',
);

it('REINS_ALLOWED_ORIGINS: comma-separated origins, normalized; a malformed one is a ConfigError naming it', () => {
  expect(readConfig({}).allowedOrigins).toEqual([]);
  expect(
    readConfig({ REINS_ALLOWED_ORIGINS: ' https://Kitchen.Example, http://partner.example:8080/ ,' })
      .allowedOrigins,
  ).toEqual(['https://kitchen.example', 'http://partner.example:8080']);
  for (const bad of ['kitchen.example', 'https://kitchen.example/app', '*', 'null']) {
    expect(() => readConfig({ REINS_ALLOWED_ORIGINS: bad })).toThrow(ConfigError);
    expect(() => readConfig({ REINS_ALLOWED_ORIGINS: bad })).toThrow(/REINS_ALLOWED_ORIGINS/);
  }
});
