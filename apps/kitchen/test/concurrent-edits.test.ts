import { expect, it } from 'vitest';
import { describeEachBackend, type Harness, type HttpReply } from './harness.js';

/**
 * Issue 16.14: two members editing at once. Versions and ETags with `If-Match` (412), "use up"
 * as one conditional UPDATE (409 on over-use, never a lost decrement), `Idempotency-Key` on POSTs.
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;
const etag = (id: string, version: number) => `"${id}-v${version}"`;

async function newItem(h: Harness, token: string, name: string, quantity = 10): Promise<string> {
  const reply = await h.request('POST', '/api/fridge', { token, body: { name, quantity, unit: '个' } });
  expect(reply.status).toBe(201);
  return json(reply)['id'] as string;
}

async function newRecipe(h: Harness, token: string, name: string): Promise<string> {
  const reply = await h.request('POST', '/api/recipes', {
    token,
    body: { name, ingredients: [{ name: '鸡蛋' }] },
  });
  expect(reply.status).toBe(201);
  return json(reply)['id'] as string;
}

const count = async (h: Harness, table: string, name: string) =>
  (await h.db.query(`SELECT 1 FROM ${table} WHERE name = $1`, [name])).length;

describeEachBackend('concurrent edits (issue 16.14)', (harness) => {
  it('fridge items, recipes and plan entries carry a version and an ETag; every change bumps it', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '版本鸡蛋', quantity: 10, unit: '个' },
    });
    const id = json(created)['id'] as string;
    expect(json(created)['version']).toBe(1);
    expect(created.headers.get('etag')).toBe(etag(id, 1));
    const got = await h.request('GET', `/api/fridge/${id}`, { token });
    expect(got.headers.get('etag')).toBe(etag(id, 1));
    const patched = await h.request('PATCH', `/api/fridge/${id}`, { token, body: { quantity: 12 } });
    expect(json(patched)['version']).toBe(2);
    expect(patched.headers.get('etag')).toBe(etag(id, 2));
    const used = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 2 } });
    expect(json(used)).toMatchObject({ removed: false, item: { quantity: 10, version: 3 } });
    expect(used.headers.get('etag')).toBe(etag(id, 3));
    const listed = (json(await h.request('GET', '/api/fridge', { token }))['items'] as Json[]).find(
      (i) => i['id'] === id,
    );
    expect(listed?.['version']).toBe(3);

    const recipeId = await newRecipe(h, token, '版本菜');
    const recipe = await h.request('PATCH', `/api/recipes/${recipeId}`, { token, body: { servings: 3 } });
    expect(json(recipe)['version']).toBe(2);
    expect(recipe.headers.get('etag')).toBe(etag(recipeId, 2));
    const plan = await h.request('POST', '/api/meal-plans', {
      token,
      body: { date: '2026-05-05', slot: 'lunch', recipeId },
    });
    const planId = json(plan)['id'] as string;
    expect(json(plan)['version']).toBe(1);
    const moved = await h.request('PATCH', `/api/meal-plans/${planId}`, { token, body: { slot: 'dinner' } });
    expect(json(moved)['version']).toBe(2);
    expect(moved.headers.get('etag')).toBe(etag(planId, 2));
  });

  it('a stale If-Match is a 412 naming the current version: the other member’s edit is not lost', async () => {
    const h = harness();
    const xiaojia = await h.login('xiaojia');
    const mama = await h.login('mama'); // same household
    const id = await newItem(h, xiaojia, '牛肉');
    const seen = (await h.request('GET', `/api/fridge/${id}`, { token: xiaojia })).headers.get('etag') ?? '';
    const seenByMama =
      (await h.request('GET', `/api/fridge/${id}`, { token: mama })).headers.get('etag') ?? '';
    expect(seen).toBe(seenByMama);

    const first = await h.request('PATCH', `/api/fridge/${id}`, {
      token: mama,
      body: { quantity: 8 },
      headers: { 'if-match': seenByMama },
    });
    expect(first.status).toBe(200);
    const second = await h.request('PATCH', `/api/fridge/${id}`, {
      token: xiaojia,
      body: { location: 'freezer' },
      headers: { 'if-match': seen },
    });
    expect(second.status).toBe(412);
    expect(json(second)['error']).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 2 });
    expect(second.headers.get('etag')).toBe(etag(id, 2));
    expect(json(await h.request('GET', `/api/fridge/${id}`, { token: xiaojia }))).toMatchObject({
      quantity: 8,
      location: 'fridge',
      version: 2,
    });
    // With the current ETag (from the 412) it applies; a list of tags matches any of them; `*` any version.
    const retried = await h.request('PATCH', `/api/fridge/${id}`, {
      token: xiaojia,
      body: { location: 'freezer' },
      headers: { 'if-match': `${seen}, ${second.headers.get('etag') ?? ''}` },
    });
    expect(json(retried)).toMatchObject({ quantity: 8, location: 'freezer', version: 3 });
    const star = await h.request('PATCH', `/api/fridge/${id}`, {
      token: xiaojia,
      body: { unit: '块' },
      headers: { 'if-match': '*' },
    });
    expect(json(star)['version']).toBe(4);
    // A weak tag never matches (If-Match compares strongly); another row's tag neither.
    for (const tag of [`W/${etag(id, 4)}`, etag('other', 4)]) {
      const reply = await h.request('PATCH', `/api/fridge/${id}`, {
        token: xiaojia,
        body: { unit: '个' },
        headers: { 'if-match': tag },
      });
      expect(reply.status, tag).toBe(412);
    }
    const garbled = await h.request('PATCH', `/api/fridge/${id}`, {
      token: xiaojia,
      body: { unit: '个' },
      headers: { 'if-match': 'v4' },
    });
    expect(garbled.status).toBe(400);
    expect(json(garbled)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: 'If-Match' });
    // Without If-Match: last write wins (documented), as before.
    const blind = await h.request('PATCH', `/api/fridge/${id}`, { token: mama, body: { quantity: 1 } });
    expect(json(blind)).toMatchObject({ quantity: 1, version: 5 });

    // DELETE and use honour it too.
    const staleDelete = await h.request('DELETE', `/api/fridge/${id}`, {
      token: xiaojia,
      headers: { 'if-match': etag(id, 4) },
    });
    expect(staleDelete.status).toBe(412);
    const staleUse = await h.request('POST', `/api/fridge/${id}/use`, {
      token: xiaojia,
      headers: { 'if-match': etag(id, 4) },
    });
    expect(staleUse.status).toBe(412);
    expect(json(await h.request('GET', `/api/fridge/${id}`, { token: xiaojia }))['version']).toBe(5);
    const deleted = await h.request('DELETE', `/api/fridge/${id}`, {
      token: xiaojia,
      headers: { 'if-match': etag(id, 5) },
    });
    expect(deleted.status).toBe(204);
    const gone = await h.request('DELETE', `/api/fridge/${id}`, {
      token: xiaojia,
      headers: { 'if-match': '*' },
    });
    expect(gone.status).toBe(404);
  });

  it('recipes and meal plan entries: a stale If-Match on PATCH or DELETE is a 412 and changes nothing', async () => {
    const h = harness();
    const xiaojia = await h.login('xiaojia');
    const mama = await h.login('mama');
    const recipeId = await newRecipe(h, xiaojia, '冲突菜');
    const plan = await h.request('POST', '/api/meal-plans', {
      token: xiaojia,
      body: { date: '2026-05-06', slot: 'dinner', recipeId },
    });
    const planId = json(plan)['id'] as string;
    for (const [path, change] of [
      [`/api/recipes/${recipeId}`, { name: '妈妈改的菜' }],
      [`/api/meal-plans/${planId}`, { note: '妈妈改的' }],
    ] as const) {
      const v1 = etag(path.split('/').at(-1) ?? '', 1);
      expect(
        (await h.request('PATCH', path, { token: mama, body: change, headers: { 'if-match': v1 } })).status,
      ).toBe(200);
      const lost = await h.request('PATCH', path, {
        token: xiaojia,
        body: { servings: 4 },
        headers: { 'if-match': v1 },
      });
      expect(lost.status, path).toBe(412);
      expect(json(lost)['error'], path).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 2 });
      const staleDelete = await h.request('DELETE', path, { token: xiaojia, headers: { 'if-match': v1 } });
      expect(staleDelete.status, path).toBe(412);
      expect(json(await h.request('GET', path, { token: xiaojia }))).toMatchObject({ ...change, version: 2 });
    }
    const v2 = etag(planId, 2);
    expect(
      (
        await h.request('DELETE', `/api/meal-plans/${planId}`, {
          token: xiaojia,
          headers: { 'if-match': v2 },
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await h.request('DELETE', `/api/recipes/${recipeId}`, {
          token: xiaojia,
          headers: { 'if-match': etag(recipeId, 2) },
        })
      ).status,
    ).toBe(204);
  });

  it('two concurrent PATCHes with the same If-Match: exactly one applies, the other is a 412', async () => {
    const h = harness();
    const xiaojia = await h.login('xiaojia');
    const mama = await h.login('mama');
    for (let round = 0; round < 5; round++) {
      const id = await newItem(h, xiaojia, `并发${round}`);
      const replies = await Promise.all(
        [xiaojia, mama].map((token, i) =>
          h.request('PATCH', `/api/fridge/${id}`, {
            token,
            body: { quantity: i + 1 },
            headers: { 'if-match': etag(id, 1) },
          }),
        ),
      );
      expect(replies.map((r) => r.status).sort(), `round ${round}`).toEqual([200, 412]);
      const winner = replies.find((r) => r.status === 200) as HttpReply;
      expect(json(await h.request('GET', `/api/fridge/${id}`, { token: xiaojia }))).toMatchObject({
        quantity: json(winner)['quantity'],
        version: 2,
      });
    }
  });

  it('two concurrent "use 6 of 10": one 200, one 409 CONFLICT, 4 left', async () => {
    const h = harness();
    const xiaojia = await h.login('xiaojia');
    const mama = await h.login('mama');
    for (let round = 0; round < 5; round++) {
      const id = await newItem(h, xiaojia, `鸡蛋${round}`, 10);
      const replies = await Promise.all(
        [xiaojia, mama].map((token) =>
          h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 6 } }),
        ),
      );
      expect(replies.map((r) => r.status).sort(), `round ${round}`).toEqual([200, 409]);
      const refused = replies.find((r) => r.status === 409) as HttpReply;
      expect(json(refused)['error']).toMatchObject({ code: 'CONFLICT', field: 'quantity' });
      expect(json(refused)['error']).toMatchObject({ message: expect.stringContaining('only 4') });
      const after = json(await h.request('GET', `/api/fridge/${id}`, { token: xiaojia }));
      expect(after).toMatchObject({ quantity: 4, version: 2 });
    }
    // Exactly what is left: used up and removed; 0.1 + 0.2 style leftovers do not linger.
    const id = await newItem(h, xiaojia, '零头', 0.3);
    expect(
      json(await h.request('POST', `/api/fridge/${id}/use`, { token: xiaojia, body: { quantity: 0.1 } })),
    ).toMatchObject({
      item: { quantity: 0.2 },
    });
    expect(
      json(await h.request('POST', `/api/fridge/${id}/use`, { token: xiaojia, body: { quantity: 0.2 } })),
    ).toEqual({
      removed: true,
      item: null,
    });
  });

  it('a repeated POST with the same Idempotency-Key creates one row and gets the same answer', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const body = { name: '幂等豆腐', quantity: 2, unit: '块' };
    const headers = { 'idempotency-key': 'add-tofu-1' };
    const first = await h.request('POST', '/api/fridge', { token, body, headers });
    const again = await h.request('POST', '/api/fridge', { token, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await count(h, 'fridge_items', '幂等豆腐')).toBe(1);

    // Concurrent repeats: one runs, the others wait for its answer.
    const burst = { name: '并发豆腐', quantity: 1, unit: '块' };
    const replies = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.request('POST', '/api/fridge', { token, body: burst, headers: { 'idempotency-key': 'burst-1' } }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(replies.map((r) => json(r)['id'])).size).toBe(1);
    expect(await count(h, 'fridge_items', '并发豆腐')).toBe(1);

    // Recipes and plan entries alike; and a use with a key is taken once.
    const recipe = { name: '幂等菜', ingredients: [{ name: '盐' }] };
    for (let i = 0; i < 2; i++)
      expect(
        (
          await h.request('POST', '/api/recipes', {
            token,
            body: recipe,
            headers: { 'idempotency-key': 'r-1' },
          })
        ).status,
      ).toBe(201);
    expect(await count(h, 'recipes', '幂等菜')).toBe(1);
    const recipeId = (await h.db.query<{ id: string }>("SELECT id FROM recipes WHERE name = '幂等菜'"))[0]
      ?.id;
    const entry = { date: '2026-05-07', slot: 'lunch', recipeId };
    const plans = [];
    for (let i = 0; i < 2; i++)
      plans.push(
        await h.request('POST', '/api/meal-plans', {
          token,
          body: entry,
          headers: { 'idempotency-key': 'p-1' },
        }),
      );
    expect(plans[1]?.body).toEqual(plans[0]?.body);
    expect(await h.db.query('SELECT 1 FROM meal_plans WHERE recipe_id = $1', [recipeId])).toHaveLength(1);
    const id = json(first)['id'] as string;
    for (let i = 0; i < 2; i++)
      await h.request('POST', `/api/fridge/${id}/use`, {
        token,
        body: { quantity: 1 },
        headers: { 'idempotency-key': 'use-1' },
      });
    expect(json(await h.request('GET', `/api/fridge/${id}`, { token }))['quantity']).toBe(1);

    // Keys are per user: the same key from another member is another request.
    const mama = await h.login('mama');
    expect((await h.request('POST', '/api/fridge', { token: mama, body, headers })).status).toBe(201);
    expect(await count(h, 'fridge_items', '幂等豆腐')).toBe(2);
  });

  it('the same Idempotency-Key with another body or path is refused; keys expire after 24 h', async () => {
    const h = harness();
    const token = await h.login('laowang');
    const headers = { 'idempotency-key': 'reused-key' };
    const first = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '梨', quantity: 1, unit: '个' },
      headers,
    });
    expect(first.status).toBe(201);
    const otherBody = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '梨', quantity: 2, unit: '个' },
      headers,
    });
    expect(otherBody.status).toBe(422);
    expect(json(otherBody)['error']).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      field: 'Idempotency-Key',
    });
    const otherPath = await h.request('POST', '/api/recipes', {
      token,
      body: { name: '梨汤', ingredients: [{ name: '梨' }] },
      headers,
    });
    expect(otherPath.status).toBe(422);
    expect(await count(h, 'fridge_items', '梨')).toBe(1);
    expect(await count(h, 'recipes', '梨汤')).toBe(0);

    // A first answer that was an error is replayed too (the same request gets the same answer).
    const bad = { name: '', quantity: 1, unit: '个' };
    const refused = await h.request('POST', '/api/fridge', {
      token,
      body: bad,
      headers: { 'idempotency-key': 'bad-1' },
    });
    const refusedAgain = await h.request('POST', '/api/fridge', {
      token,
      body: bad,
      headers: { 'idempotency-key': 'bad-1' },
    });
    expect([refused.status, refusedAgain.status]).toEqual([400, 400]);
    expect(refusedAgain.headers.get('idempotent-replayed')).toBe('true');

    for (const key of ['', 'x'.repeat(256), 'with space']) {
      const reply = await h.request('POST', '/api/fridge', {
        token,
        body: { name: '桃', quantity: 1, unit: '个' },
        headers: { 'idempotency-key': key },
      });
      expect(reply.status, key).toBe(400);
      expect(json(reply)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: 'Idempotency-Key' });
    }

    // 24 h later the key is swept (on the next keyed write) and can be used afresh.
    await h.db.query(
      "UPDATE idempotency_keys SET created_at = created_at - interval '25 hours' WHERE key = 'reused-key'",
    );
    const later = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '梨', quantity: 2, unit: '个' },
      headers,
    });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(h, 'fridge_items', '梨')).toBe(2);
    expect(await h.db.query("SELECT 1 FROM idempotency_keys WHERE key = 'reused-key'")).toHaveLength(1);
  });
});
