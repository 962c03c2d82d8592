import { expect, it } from 'vitest';
import type { Model } from 'reins';
import { sqlConversationStore, sqlRunStore } from '@reins/stores';
import { pgQueryable } from '../src/db/pg-queryable.js';
import { createKitchenServer } from '../src/server/kitchen-server.js';
import { describeEachBackend } from './harness.js';
import { capturedLogger } from './server-helpers.js';

/** Issue 16.6 regressions: a NUL reached PostgreSQL / PGlite `text` and came back a 500. */

const quickModel: Model = {
  name: 'quick',
  call: () =>
    Promise.resolve({
      ok: true,
      text: JSON.stringify({ thought: 'ok', final: '好' }),
      usage: { inputTokens: 1, outputTokens: 1 },
    }),
};

const refused = (field: string) => ({
  error: {
    code: 'INVALID_PARAMETER',
    field,
    message: expect.stringContaining(`${field}: contains`) as unknown,
  },
});

describeEachBackend('bad bytes: control characters are a 400 naming the field (issue 16.6)', (harness) => {
  it('nul-byte-in-fridge-item-name: 400 naming `name`, nothing stored', async () => {
    const h = harness();
    const token = await h.login('mama');
    const reply = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '冻\u0000梨', quantity: 1, unit: '盒' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(refused('name'));
    const rows = await h.db.query('SELECT id FROM fridge_items WHERE name LIKE $1', ['冻%梨']);
    expect(rows).toEqual([]);
  });

  it('nul-byte-in-recipe-ingredient: 400 naming `ingredients.1.name`', async () => {
    const h = harness();
    const token = await h.login('mama');
    const reply = await h.request('POST', '/api/recipes', {
      token,
      body: { name: '番茄炒蛋', ingredients: [{ name: '番茄' }, { name: '鸡\u0000蛋' }] },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(refused('ingredients.1.name'));
  });

  it('nul-byte-in-query-parameter and in a path parameter: 400 naming `query.q` / `path.id`', async () => {
    const h = harness();
    const token = await h.login('mama');
    const query = await h.request('GET', '/api/recipes?q=%E8%9B%8B%00', { token });
    expect(query.status).toBe(400);
    expect(query.body).toEqual(refused('query.q'));
    const path = await h.request('GET', '/api/fridge/%00', { token });
    expect(path.status).toBe(400);
    expect(path.body).toEqual(refused('path.id'));
  });

  it('control characters and lone surrogates are refused; newlines and tabs only in free text (steps, notes, memories)', async () => {
    const h = harness();
    const token = await h.login('mama');
    const base = { name: '凉拌黄瓜', ingredients: [{ name: '黄瓜' }] };
    for (const [body, field] of [
      [{ ...base, name: '凉拌\n黄瓜' }, 'name'],
      [{ ...base, tags: ['a\u0007'] }, 'tags.0'],
      [{ ...base, steps: ['切\u0085块'] }, 'steps.0'],
      [{ ...base, ingredients: [{ name: '\ud800' }] }, 'ingredients.0.name'],
    ] as const) {
      const reply = await h.request('POST', '/api/recipes', { token, body });
      expect(reply.status, field).toBe(400);
      expect(reply.body).toEqual(refused(field));
    }
    const ok = await h.request('POST', '/api/recipes', {
      token,
      body: { ...base, steps: ['切块\n拍碎\t装盘'] },
    });
    expect(ok.status).toBe(201);
    expect((ok.body as { steps: string[] }).steps).toEqual(['切块\n拍碎\t装盘']);
    const memory = await h.request('POST', '/api/memories', { token, body: { text: '不吃香菜\n周末做饭' } });
    expect(memory.status).toBe(201);
  });

  it('nul-byte-in-run-input: POST /v1/runs is a 400 naming `input`, with runs and conversations in SQL stores', async () => {
    const h = harness();
    const queryable = pgQueryable(h.services.env.db);
    const server = createKitchenServer({
      services: h.services,
      model: quickModel,
      nutrition: () => Promise.resolve(null),
      logger: capturedLogger().logger,
      durable: { store: await sqlRunStore(queryable) },
      conversations: { store: await sqlConversationStore(queryable) },
    });
    try {
      const token = await h.login('mama');
      const ask = (body: unknown, headers: Record<string, string> = {}) =>
        server.app.request('/v1/runs', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const bad = await ask({ agent: 'kitchen', input: '今晚\u0000吃什么' });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({
        error: { code: 'INVALID_PARAMETER', message: 'input: contains a NUL byte' },
      });
      const ok = await ask({ agent: 'kitchen', input: '今晚吃什么？\n两个人' });
      expect(ok.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
