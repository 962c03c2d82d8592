import fc from 'fast-check';
import type { Hono } from 'hono';
import { expect, it } from 'vitest';
import type { Model } from 'reins';
import { sqlConversationStore, sqlRunStore } from '@reins/stores';
import { pgQueryable } from '../src/db/pg-queryable.js';
import { LOCATIONS, NOTE_KINDS, ROLES, SLOTS } from '../src/domain/types.js';
import { createKitchenApp } from '../src/http/app.js';
import { createKitchenServer } from '../src/server/kitchen-server.js';
import { body, checkReply, encode, urlValue } from './fuzz-arbitraries.js';
import { describeEachBackend, type Harness, TODAY } from './harness.js';
import { capturedLogger } from './server-helpers.js';

/**
 * Issue 16.6: a generated fuzz test over every kitchen REST route and every /v1 route (the
 * routes are read from the apps, so a new one without a case here fails the test). Each case
 * mixes valid shapes with NUL and other controls, lone surrogates, huge strings, wrong types,
 * deep nesting and odd unicode; no answer may be a 5xx, every 4xx is `{error: {code, message}}`.
 */

const RUNS = 30;
const SEED = 16_6;

type Shape = Record<string, fc.Arbitrary<unknown>>;
interface RouteCase {
  readonly body?: Shape;
  readonly query?: Shape;
  readonly headers?: Shape;
}

const s = (...values: unknown[]) => fc.constantFrom(...values);
const qty = fc.oneof(fc.integer({ min: 0, max: 10 }), fc.double({ noNaN: true }));
const ingredient = fc.record({ name: s('番茄', '鸡蛋'), quantity: qty, unit: s('个', null) });
// Issue 16.14: conditional writes and repeatable POSTs (a header value is Latin-1 at most in fetch).
const ifMatch = { 'if-match': s('*', '"x-v1"', 'W/"x-v1"', '"a", "b"', 'v1', '', '"', ',,', 'é') };
const idempotencyKey = { 'idempotency-key': s('k-1', 'k-2', '', ' ', 'é', 'k'.repeat(300)) };

const KITCHEN: Record<string, RouteCase> = {
  'GET /health': {},
  // Not mama, whose token every case uses: five wrong passwords lock a username (issue 16.4).
  'POST /api/auth/login': { body: { username: s('laowang', 'nobody'), password: s('demo-laowang', 'x') } },
  'POST /api/auth/logout': {},
  'GET /api/auth/me': {},
  'GET /api/households': {},
  'POST /api/households': { body: { name: s('新家') } },
  'POST /api/households/active': { body: { householdId: s('nope') } },
  'GET /api/household/members': {},
  'PATCH /api/household/members/:userId': { body: { role: s(...ROLES) } },
  'DELETE /api/household/members/:userId': {},
  'GET /api/household/invitations': {},
  'POST /api/household/invitations': {
    body: { username: s('laowang', 'nobody', ' MaMa ', 'a b'), role: s(...ROLES) },
  },
  'DELETE /api/household/invitations/:id': {},
  'GET /api/invitations': {},
  'POST /api/invitations/:id/accept': {},
  'POST /api/invitations/:id/decline': {},
  'GET /api/fridge': { query: { expiringWithinDays: s('3', '400'), location: s(...LOCATIONS) } },
  'POST /api/fridge': {
    headers: idempotencyKey,
    body: {
      name: s('牛奶'),
      quantity: qty,
      unit: s('盒'),
      location: s(...LOCATIONS),
      expiresOn: s(TODAY, null),
    },
  },
  'GET /api/fridge/:id': {},
  'PATCH /api/fridge/:id': {
    headers: ifMatch,
    body: { name: s('牛奶'), quantity: qty, expiresOn: s(TODAY, '2026-02-30') },
  },
  'DELETE /api/fridge/:id': { headers: ifMatch },
  'POST /api/fridge/:id/use': { headers: { ...ifMatch, ...idempotencyKey }, body: { quantity: qty } },
  'GET /api/recipes': { query: { q: s('蛋'), tag: s('家常') } },
  'GET /api/recipes/search': { query: { ingredients: s('番茄,鸡蛋'), limit: s('5', 'x') } },
  'POST /api/recipes': {
    headers: idempotencyKey,
    body: {
      name: s('番茄炒蛋'),
      servings: s(2),
      ingredients: fc.array(ingredient, { maxLength: 3 }),
      steps: s(['炒\n出锅']),
      tags: s(['家常']),
    },
  },
  'GET /api/recipes/:id': {},
  'PATCH /api/recipes/:id': {
    headers: ifMatch,
    body: { name: s('改名'), steps: s(['a\tb']), ingredients: fc.array(ingredient) },
  },
  'DELETE /api/recipes/:id': { headers: ifMatch },
  'GET /api/meal-plans': { query: { week: s(TODAY), from: s(TODAY), to: s('2026-05-07') } },
  'POST /api/meal-plans': {
    headers: idempotencyKey,
    body: {
      date: s(TODAY),
      slot: s(...SLOTS),
      recipeId: s('x'),
      servings: s(2, null),
      note: s('少盐\n不辣'),
    },
  },
  'GET /api/meal-plans/:id': {},
  'PATCH /api/meal-plans/:id': { headers: ifMatch, body: { slot: s(...SLOTS), note: s('n') } },
  'DELETE /api/meal-plans/:id': { headers: ifMatch },
  'GET /api/preferences': {},
  'POST /api/preferences': {
    headers: idempotencyKey,
    body: { kind: s(...NOTE_KINDS), label: s('花生'), person: s('小贾', null), note: s('严重') },
  },
  'DELETE /api/preferences/:id': {},
  'GET /api/memories': {},
  'POST /api/memories': { headers: idempotencyKey, body: { text: s('不吃香菜\n周末做饭') } },
  'DELETE /api/memories/:id': {},
};

const V1: Record<string, RouteCase> = {
  'GET /v1/agents': {},
  'POST /v1/runs': {
    body: {
      agent: s('kitchen', 'kitchen-plan', 'none'),
      input: s('今晚吃什么？\n两个人'),
      maxSteps: s(1, 2),
      model: s('fuzz'),
      conversationId: s('c-1'),
    },
  },
  'GET /v1/runs/:id': {},
  'GET /v1/runs/:id/events': { headers: { 'last-event-id': s('0', '1', 'x') } },
  'POST /v1/runs/:id/cancel': {},
  'POST /v1/runs/:id/approve': { body: { actId: s('a-1'), inputHash: s('0'.repeat(64)), approve: s(true) } },
  'POST /v1/runs/:id/answer': { body: { questionId: s('q-1'), answer: s('两个人\n不要辣') } },
  'GET /v1/conversations': { query: { limit: s('5', '0') } },
  'GET /v1/conversations/:id': {},
  'DELETE /v1/conversations/:id': {},
  'GET /health': {},
  'GET /health/live': {},
  'GET /metrics': {},
};

/** A model that answers at once (a run is cheap), so valid /v1/runs bodies finish. */
const quickModel: Model = {
  name: 'fuzz',
  call: () =>
    Promise.resolve({
      ok: true,
      text: JSON.stringify({ thought: 'ok', final: '番茄炒蛋' }),
      usage: { inputTokens: 1, outputTokens: 1 },
    }),
};

const routeKeys = (app: Pick<Hono, 'routes'>) =>
  new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));

/** Real ids of the demo data (so valid shapes reach the database), refreshed per route. */
async function realIds(h: Harness): Promise<Record<string, string[]>> {
  const ids = async (sql: string) => (await h.db.query<{ id: string }>(sql)).map((r) => r.id);
  return {
    id: [
      ...(await ids('SELECT id FROM fridge_items LIMIT 2')),
      ...(await ids('SELECT id FROM recipes LIMIT 2')),
      ...(await ids('SELECT id FROM invitations LIMIT 2')),
    ],
    userId: await ids('SELECT id FROM users LIMIT 3'),
  };
}

async function fuzzRoute(
  h: Harness,
  app: { request: Hono['request'] },
  key: string,
  route: RouteCase,
  seed: number,
): Promise<void> {
  const [method = 'GET', pattern = '/'] = key.split(' ');
  const names = [...pattern.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
  const ids = await realIds(h);
  const token = await h.login('mama');
  const params = fc.record(
    Object.fromEntries(names.map((n) => [n, urlValue(() => ids[n] ?? ids['id'] ?? [])])),
  );
  const query = fc.dictionary(
    fc.oneof(fc.constantFrom(...Object.keys(route.query ?? { q: s('') })), fc.constantFrom('\u0000', 'x')),
    urlValue(() => ['3', TODAY, '番茄']),
    { maxKeys: 3 },
  );
  const headers =
    route.headers === undefined ? fc.constant({}) : fc.record(route.headers, { requiredKeys: [] });
  await fc.assert(
    fc.asyncProperty(params, query, body(route.body), headers, async (p, q, b, hd) => {
      const path = pattern.replace(/:(\w+)/g, (_, n: string) => encode(p[n] ?? { text: '' }));
      const search = Object.entries(q)
        .map(([k, v]) => `${encode({ text: k })}=${encode(v)}`)
        .join('&');
      const init: RequestInit = {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(hd as Record<string, string>),
        },
        ...(b === undefined || method === 'GET' ? {} : { body: JSON.stringify(b) }),
      };
      const response = await app.request(`${path}${search === '' ? '' : `?${search}`}`, init);
      const problem = checkReply(response.status, await readSome(response));
      if (problem !== undefined) throw new Error(`${key}: ${problem}`);
    }),
    { numRuns: RUNS, seed, endOnFailure: true },
  );
}

/** The body, or what came within a second (an event stream of a live run does not end). */
async function readSome(response: Response): Promise<string> {
  const timer = new Promise<string>((resolve) => setTimeout(() => resolve(''), 1_000).unref());
  const text = await Promise.race([response.text(), timer]);
  await response.body?.cancel().catch(() => undefined);
  return text;
}

describeEachBackend('fuzz: every REST and /v1 route, no 5xx (issue 16.6)', (harness) => {
  it('every kitchen REST route has a fuzz case, and none answers a 5xx', { timeout: 60_000 }, async () => {
    const h = harness();
    const errors: unknown[] = [];
    const app = createKitchenApp({
      services: h.services,
      maxBodyBytes: 16 * 1024,
      reportError: (e) => errors.push(e),
    });
    expect([...routeKeys(app)].sort()).toEqual(Object.keys(KITCHEN).sort());
    // A real invitation for the fuzzed user (mama) to answer, and one addressed to someone else.
    await h.services.invitations.invite(await h.principal('laowang'), { username: 'mama' });
    await h.services.invitations.invite(await h.principal('xiaojia'), { username: 'laowang' });
    let seed = SEED;
    for (const [key, route] of Object.entries(KITCHEN)) await fuzzRoute(h, app, key, route, seed++);
    expect(errors).toEqual([]);
  });

  it(
    'every /v1 route has a fuzz case, and none answers a 5xx (runs and conversations in SQL stores)',
    { timeout: 60_000 },
    async () => {
      const h = harness();
      const queryable = pgQueryable(h.services.env.db);
      const server = createKitchenServer({
        services: h.services,
        model: quickModel,
        nutrition: () => Promise.resolve(null),
        quota: { ratePerWindow: 100_000 },
        logger: capturedLogger().logger,
        durable: { store: await sqlRunStore(queryable) },
        conversations: { store: await sqlConversationStore(queryable) },
      });
      try {
        expect([...routeKeys(server.reins.app)].sort()).toEqual(Object.keys(V1).sort());
        let seed = SEED + 100;
        for (const [key, route] of Object.entries(V1)) await fuzzRoute(h, server.app, key, route, seed++);
      } finally {
        await server.close();
      }
    },
  );
});
