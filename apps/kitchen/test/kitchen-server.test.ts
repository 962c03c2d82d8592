import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectMcp } from '@reins/mcp';
import { serve } from '@reins/server';
import type { Model, ScriptReply } from 'reins';
import { scriptModel } from 'reins/testing';
import type { KitchenAnswer } from '../src/assistant/cards.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { KITCHEN_DEMO_NOTICE } from '../src/assistant/demo/write-answer.js';
import { mcpNutritionLookup } from '../src/assistant/mcp-nutrition.js';
import { connectNutrition, type NutritionConnection } from '../src/server/nutrition-bridge.js';
import { createKitchenServer, type KitchenServerOptions } from '../src/server/kitchen-server.js';
import { actions, call } from './assistant-helpers.js';
import { expectNoLeakIn, leakMarkers, targetsInB } from './attack-helpers.js';
import { describeEachBackend, type Harness } from './harness.js';
import { capturedLogger, parseSse, redisProxy } from './server-helpers.js';

const HANGING = fileURLToPath(new URL('./fixtures/hanging-nutrition-mcp.mjs', import.meta.url));

interface Reply {
  readonly status: number;
  readonly events: { type: string; [key: string]: unknown }[];
  readonly message?: { text: string; format: string; demo: boolean; data?: KitchenAnswer };
}

/** One kitchen server on 127.0.0.1 for a scenario; `ask` posts to /v1/runs (SSE or JSON). */
async function kitchen(h: Harness, options: Partial<KitchenServerOptions> & { model: Model }) {
  const server = createKitchenServer({
    services: h.services,
    nutrition: () => Promise.resolve(null),
    quota: { ratePerWindow: 1_000 },
    logger: capturedLogger().logger, // quiet: lines kept in memory
    ...options,
  });
  const running = await serve(server.app, { port: 0 });
  const ask = async (token: string, input: string, stream = false): Promise<Reply> => {
    const response = await fetch(`${running.url}/v1/runs`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        ...(stream ? { accept: 'text/event-stream' } : {}),
      },
      body: JSON.stringify({ agent: 'kitchen', input }),
    });
    const text = await response.text();
    const events = stream
      ? parseSse(text).map((e) => ({ ...e.data, type: e.event }))
      : ((JSON.parse(text) as { events?: Reply['events'] }).events ?? []);
    const message = events.find((e) => e.type === 'message') as Reply['message'] | undefined;
    return { status: response.status, events, ...(message === undefined ? {} : { message }) };
  };
  const get = async (path: string, token?: string) => {
    const response = await fetch(`${running.url}${path}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    url: running.url,
    ask,
    get,
    close: async () => {
      await server.close();
      await running.close();
    },
  };
}

/** The nutrition server as a stdio child that a test can kill for good (no respawn). */
async function killableNutrition(): Promise<NutritionConnection & { kill(): void }> {
  const children: ReturnType<typeof spawn>[] = [];
  let dead = false;
  const connection = await connectNutrition({
    reconnect: { maxAttempts: 1, initialDelayMs: 10 },
    deps: {
      spawn: (command, args, options) => {
        const child = dead
          ? spawn(process.execPath, ['-e', 'process.exit(1)'], options)
          : spawn(command, [...args], options);
        children.push(child);
        return child;
      },
    },
  });
  return {
    ...connection,
    kill: () => {
      dead = true;
      for (const child of children) child.kill('SIGKILL');
    },
  };
}

const nutritionCards = (reply: Reply) =>
  (reply.message?.data?.cards ?? []).filter((c) => c.type === 'nutrition');

describeEachBackend(
  'Xiaojia Kitchen served end to end over HTTP',
  (harness) => {
    let nutrition: NutritionConnection | undefined;
    beforeAll(async () => {
      nutrition = await connectNutrition();
    }, 30_000);
    afterAll(async () => {
      await nutrition?.close();
    });
    const demo = (h: Harness) => kitchenDemoModel({ now: () => h.clock.now });

    it('no model key: the demo model answers with cards from real data, "demo" in every answer (SSE and JSON)', async () => {
      const h = harness();
      if (nutrition === undefined) throw new Error('no nutrition server');
      const app = await kitchen(h, {
        model: demo(h),
        nutrition: nutrition.lookup,
        nutritionHealth: nutrition.health,
      });
      try {
        const token = await h.login('xiaojia');
        const expiring = await app.ask(token, '冰箱里有什么快过期了？', true);
        expect(expiring.events.map((e) => e.type)[0]).toBe('start');
        expect(expiring.events.at(-1)?.type).toBe('done');
        expect(expiring.message?.format).toBe('structured');
        expect(expiring.message?.demo).toBe(true);
        expect(expiring.message?.text).toContain(KITCHEN_DEMO_NOTICE.zh);
        expect(expiring.message?.text).toContain('嫩豆腐');
        expect(expiring.message?.text).toContain('牛奶'); // expired yesterday
        expect(
          expiring.message?.data?.cards.some((c) => c.type === 'recipe' && c.origin === 'household'),
        ).toBe(true);

        const cook = await app.ask(token, 'What can I cook with what is in the fridge?');
        expect(cook.message?.text).toContain(KITCHEN_DEMO_NOTICE.en);
        const dish = nutritionCards(cook)[0];
        expect(dish).toMatchObject({ basis: 'per_serving', provenance: 'mcp_derived' });
        expect(dish?.values?.energyKcal).toBeGreaterThan(0);

        const egg = await app.ask(token, '鸡蛋的营养成分是多少？');
        expect(egg.message?.text).toContain(KITCHEN_DEMO_NOTICE.zh);
        expect(nutritionCards(egg)[0]).toMatchObject({
          food: '鸡蛋',
          basis: 'per_100g',
          provenance: 'mcp_exact',
        });

        const week = await app.ask(token, '这周的菜单怎么安排？');
        const plan = week.message?.data?.cards.find((c) => c.type === 'meal_plan');
        expect(plan?.type === 'meal_plan' && plan.entries.some((e) => e.status === 'planned')).toBe(true);
        expect(week.message?.text).toContain(KITCHEN_DEMO_NOTICE.zh);

        const allergies = await app.ask(token, '家里谁有过敏？');
        expect(allergies.message?.text).toContain('花生');
        expect(allergies.message?.text).toContain(KITCHEN_DEMO_NOTICE.zh);

        const health = await app.get('/health');
        expect(health.body).toMatchObject({ status: 'ok' });
        expect((health.body['checks'] as Record<string, unknown>)['model']).toMatchObject({ demo: true });
        // Liveness, forwarded to the Reins app: from memory, no dependency touched.
        expect(await app.get('/health/live')).toMatchObject({
          status: 200,
          body: { status: 'ok', draining: false },
        });
      } finally {
        await app.close();
      }
    }, 60_000);

    it('nutrition server killed: the answer says so and numbers are llm_estimate or omitted', async () => {
      const h = harness();
      const killable = await killableNutrition();
      const token = await h.login('xiaojia');
      // A model claiming table values while the server is down.
      const liar = scriptModel([
        actions([call('nutrition_lookup', { food: '鸡蛋' })]),
        JSON.stringify({
          thought: 'numbers',
          final: {
            reply: '鸡蛋每100克144千卡（已核对）',
            cards: [
              {
                type: 'nutrition',
                food: '鸡蛋',
                values: { energyKcal: 144 },
                provenance: 'mcp_exact',
                source: 'verified',
              },
            ],
          },
        }),
      ]);
      const withDemo = await kitchen(h, {
        model: demo(h),
        nutrition: killable.lookup,
        nutritionHealth: killable.health,
      });
      const withLiar = await kitchen(h, { model: liar, nutrition: killable.lookup });
      try {
        killable.kill();
        const demoReply = await withDemo.ask(token, '鸡蛋有多少热量？');
        expect(demoReply.message?.text).toContain('营养数据暂时不可用');
        expect(nutritionCards(demoReply)).toEqual([]); // omitted
        const lied = await withLiar.ask(token, '鸡蛋有多少热量？');
        expect(lied.message?.text).toContain('营养数据暂时不可用');
        expect(nutritionCards(lied)).toEqual([expect.objectContaining({ provenance: 'llm_estimate' })]);
        expect(JSON.stringify(lied.message?.data)).not.toContain('mcp_exact');
        expect(JSON.stringify(lied.message?.data)).not.toContain('verified');
        const health = await withDemo.get('/health');
        expect(health.body['status']).toBe('degraded');
        expect((health.body['checks'] as Record<string, unknown>)['nutrition']).toMatchObject({
          status: 'down',
        });
      } finally {
        await withDemo.close();
        await withLiar.close();
        await killable.close();
      }
    }, 60_000);

    it('nutrition server that never answers: the lookup times out and the answer says data is unavailable', async () => {
      const h = harness();
      const bridge = await connectMcp({
        name: 'nutrition',
        prefix: 'nutrition_',
        protocol: 'legacy',
        transport: { kind: 'stdio', command: process.execPath, args: [HANGING] },
        callTimeoutMs: 400,
        toolTimeoutMs: 600,
      });
      const app = await kitchen(h, {
        model: demo(h),
        nutrition: mcpNutritionLookup(bridge),
        nutritionTimeoutMs: 1_000,
      });
      try {
        const started = Date.now();
        const reply = await app.ask(await h.login('mama'), 'How many calories in an egg?');
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(reply.message?.text).toContain(KITCHEN_DEMO_NOTICE.en);
        expect(reply.message?.text).toContain('Nutrition data is unavailable');
        expect(nutritionCards(reply)).toEqual([]);
      } finally {
        await app.close();
        await bridge.close();
      }
    }, 30_000);

    it('a final answer that fails the cards schema after the repair: the raw text, labeled raw, never blank', async () => {
      const h = harness();
      const raw = 'Here are your cards: {"reply": 42, "cards": "tomato"';
      const app = await kitchen(h, { model: scriptModel([JSON.stringify({ thought: 't', final: raw })]) });
      try {
        const reply = await app.ask(await h.login('xiaojia'), '今晚吃什么？', true);
        expect(reply.message?.format).toBe('raw');
        expect(reply.message?.text).toBe(raw);
        expect(reply.message?.data).toBeUndefined();
      } finally {
        await app.close();
      }
    });

    it('non-AI features keep working with the model failing, Redis stopped and the nutrition server killed', async () => {
      const h = harness();
      const proxy = await redisProxy();
      const killable = await killableNutrition();
      const failing: Model = {
        name: 'broken',
        call: () =>
          Promise.resolve({ ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'provider down' } }),
      };
      const app = await kitchen(h, {
        model: failing,
        nutrition: killable.lookup,
        nutritionHealth: killable.health,
        redis: proxy.url,
      });
      try {
        // Up through the proxy first (the client connects in the background: poll briefly).
        const redisStatus = async () =>
          ((await app.get('/health')).body['checks'] as Record<string, { status: string }>)['redis']?.status;
        await expect.poll(redisStatus, { timeout: 5_000, interval: 100 }).toBe('up');
        await proxy.kill();
        killable.kill();
        const login = await fetch(`${app.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'wangshen', password: 'demo-wangshen' }),
        });
        expect(login.status).toBe(200);
        const { token } = (await login.json()) as { token: string };
        const send = (method: string, path: string, body?: unknown) =>
          fetch(`${app.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
        const created = await send('POST', '/api/fridge', {
          name: '芹菜',
          quantity: 1,
          unit: '把',
          location: 'fridge',
          expiresOn: '2026-05-04',
        });
        expect(created.status).toBe(201);
        const item = (await created.json()) as { id: string };
        expect((await send('PATCH', `/api/fridge/${item.id}`, { quantity: 2 })).status).toBe(200);
        expect((await send('GET', '/api/fridge')).status).toBe(200);
        expect((await send('DELETE', `/api/fridge/${item.id}`)).status).toBe(204);
        const recipes = await send('GET', '/api/recipes');
        expect(recipes.status).toBe(200);
        const [recipe] = ((await recipes.json()) as { recipes: { id: string }[] }).recipes;
        const plan = await send('POST', '/api/meal-plans', {
          date: '2026-05-03',
          slot: 'lunch',
          recipeId: recipe?.id,
        });
        expect(plan.status).toBe(201);
        expect((await send('GET', '/api/meal-plans?week=2026-05-01')).status).toBe(200);

        // The assistant fails open on the quota and reports the model failure as data.
        const run = await app.ask(token, '今晚吃什么？');
        expect(run.status).toBe(200);
        expect(run.events.some((e) => e.type === 'error')).toBe(true);
        // `/health` answers from background results: a dependency that fails slowly shows soon after.
        const checks = async () =>
          (await app.get('/health')).body['checks'] as Record<string, { status: string }>;
        await expect.poll(async () => (await checks())['redis']?.status, { timeout: 8_000 }).toBe('down');
        await expect.poll(async () => (await checks())['nutrition']?.status, { timeout: 8_000 }).toBe('down');
        const health = await app.get('/health');
        expect(health.body['status']).toBe('degraded');
        expect((health.body['checks'] as Record<string, { status: string }>)['db']?.status).toBe('up');
      } finally {
        await app.close();
        await killable.close();
      }
    }, 60_000);

    it('attacker scenarios over HTTP: no string of another household’s rows in any log line', async () => {
      const h = harness();
      const b = await targetsInB(h);
      const script: ScriptReply[] = [
        actions([
          call('fridge_items', { household_id: b.household }),
          call('search_recipes', { ingredients: ['排骨'], space_id: b.household }),
          call('nutrition_lookup', { food: '糖醋排骨' }), // B's dish: not A's, so no recipe is used
          call('household_preferences', { userId: b.owner }),
        ]),
        actions([
          call('search_recipes', { ingredients: ["' OR 1=1 --", b.recipe] }),
          call('fridge_items', { location: "fridge' OR '1'='1" }),
          call('sql', { query: `SELECT * FROM recipes WHERE household_id = '${b.household}'` }),
          call('meal_plan', { from: '2026-04-01', to: '2026-05-31' }),
        ]),
        JSON.stringify({ thought: 'claim', final: { reply: `household ${b.household}`, cards: [] } }),
      ];
      const { logger, lines } = capturedLogger();
      const app = await kitchen(h, {
        model: scriptModel(script),
        logger,
        nutrition: nutrition?.lookup ?? (() => Promise.resolve(null)),
      });
      try {
        const token = await h.login('xiaojia');
        const reply = await app.ask(token, '今晚吃什么？', true);
        expect(reply.events.at(-1)?.type).toBe('done');
        await app.get('/api/fridge', token);
        const markers = await leakMarkers(h, script);
        expect(markers).toContain('清蒸鲈鱼'); // B's dish, never typed by the attacker
        expect(lines.length).toBeGreaterThan(5);
        expect(lines.some((l) => l.includes('"msg":"act"'))).toBe(true);
        expectNoLeakIn({ logs: lines.join('\n'), events: JSON.stringify(reply.events) }, markers);
      } finally {
        await app.close();
      }
    }, 30_000);
  },
  'pglite',
);
