import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('REST API', (harness) => {
  it('fridge: create, read, update, use up part, use up the rest, delete', async () => {
    const h = harness();
    const token = await h.login('mama');
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '菠菜', quantity: 300, unit: '克', expiresOn: '2026-05-03' },
    });
    expect(created.status).toBe(201);
    expect(json(created)).toMatchObject({ name: '菠菜', location: 'fridge', daysLeft: 2 });
    const id = json(created)['id'] as string;
    expect(json(await h.request('GET', `/api/fridge/${id}`, { token }))['quantity']).toBe(300);
    const patched = await h.request('PATCH', `/api/fridge/${id}`, {
      token,
      body: { location: 'freezer', expiresOn: null },
    });
    expect(json(patched)).toMatchObject({
      location: 'freezer',
      expiresOn: null,
      daysLeft: null,
      quantity: 300,
    });
    const part = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 100.5 } });
    expect(json(part)).toMatchObject({ removed: false, item: { quantity: 199.5 } });
    const tooMuch = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 500 } });
    expect(tooMuch.status).toBe(409); // more than is left: refused, nothing taken
    expect(json(tooMuch)['error']).toMatchObject({ code: 'CONFLICT', field: 'quantity' });
    expect(json(await h.request('GET', `/api/fridge/${id}`, { token }))['quantity']).toBe(199.5);
    const rest = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 199.5 } });
    expect(json(rest)).toEqual({ removed: true, item: null });
    expect((await h.request('GET', `/api/fridge/${id}`, { token })).status).toBe(404);

    const other = json(
      await h.request('POST', '/api/fridge', { token, body: { name: '香菇', quantity: 5, unit: '朵' } }),
    );
    expect(json(await h.request('POST', `/api/fridge/${other['id'] as string}/use`, { token }))).toEqual({
      removed: true,
      item: null,
    }); // no body: the whole item
    const third = json(
      await h.request('POST', '/api/fridge', { token, body: { name: '木耳', quantity: 1, unit: '包' } }),
    );
    expect((await h.request('DELETE', `/api/fridge/${third['id'] as string}`, { token })).status).toBe(204);
    expect((await h.request('DELETE', `/api/fridge/${third['id'] as string}`, { token })).status).toBe(404);
  });

  it('concurrent "use up" calls never lose an update or go below zero', async () => {
    const h = harness();
    const token = await h.login('mama');
    const item = json(
      await h.request('POST', '/api/fridge', { token, body: { name: '饺子', quantity: 10, unit: '个' } }),
    );
    const path = `/api/fridge/${item['id'] as string}/use`;
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => h.request('POST', path, { token, body: { quantity: 1 } })),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10); // 9 decrements, then the one that removes it
    expect(statuses.filter((s) => s === 404)).toHaveLength(2); // already gone
    expect(replies.filter((r) => json(r)['removed'] === true)).toHaveLength(1);
  });

  it('fridge: expiring soon first, filtered by days, expired items included', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const soon = (
      json(await h.request('GET', '/api/fridge?expiringWithinDays=2', { token }))['items'] as Json[]
    ).map((i) => [i['name'], i['daysLeft']]);
    expect(soon).toEqual([
      ['牛奶', -1],
      ['嫩豆腐', 1],
      ['肉末', 1],
      ['番茄', 2],
    ]);
    const all = json(await h.request('GET', '/api/fridge', { token }))['items'] as Json[];
    expect(all.at(-1)).toMatchObject({ name: '大米', expiresOn: null });
    const pantry = json(await h.request('GET', '/api/fridge?location=pantry', { token }))['items'] as Json[];
    expect(pantry.every((i) => i['location'] === 'pantry')).toBe(true);
    for (const value of ['soon', '', '-1', '2.5']) {
      const bad = await h.request('GET', `/api/fridge?expiringWithinDays=${value}`, { token });
      expect(json(bad)['error'], value).toMatchObject({
        code: 'INVALID_PARAMETER',
        field: 'expiringWithinDays',
      });
    }
  });

  it('validation errors name the field', async () => {
    const h = harness();
    const token = await h.login('mama');
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/fridge', { name: '', quantity: 1, unit: '个' }, 'name'],
      ['POST', '/api/fridge', { name: '蛋', quantity: -1, unit: '个' }, 'quantity'],
      ['POST', '/api/fridge', { name: '蛋', quantity: 1, unit: '个', location: 'garage' }, 'location'],
      ['POST', '/api/fridge', { name: '蛋', quantity: 1, unit: '个', expiresOn: '2026-02-30' }, 'expiresOn'],
      ['POST', '/api/recipes', { name: '空菜', ingredients: [] }, 'ingredients'],
      ['POST', '/api/recipes', { name: '菜', ingredients: [{ name: '' }] }, 'ingredients.0.name'],
      ['POST', '/api/meal-plans', { date: '2026-05-01', slot: 'supper', recipeId: 'x' }, 'slot'],
      ['POST', '/api/preferences', { kind: 'hate', label: '葱' }, 'kind'],
      ['POST', '/api/households/active', {}, 'householdId'],
    ];
    for (const [method, path, body, field] of cases) {
      const reply = await h.request(method, path, { token, body });
      expect(reply.status, `${path} ${field}`).toBe(400);
      expect(json(reply)['error'], `${path} ${field}`).toMatchObject({ code: 'INVALID_PARAMETER', field });
    }
    const notJson = await h.request('POST', '/api/fridge', {
      token,
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(json(notJson)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: '(body)' });
  });

  it('a body over the cap is 413 with a JSON error', async () => {
    const h = harness();
    const token = await h.login('mama');
    const reply = await h.request('POST', '/api/recipes', {
      token,
      body: { name: '大菜', ingredients: [{ name: '盐' }], steps: ['很长'.repeat(10_000)] },
    });
    expect(reply.status).toBe(413);
    expect(json(reply)['error']).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('recipes: CRUD, list filters, search ranked by ingredients used', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const created = await h.request('POST', '/api/recipes', {
      token,
      body: {
        name: '西红柿鸡蛋面',
        servings: 1,
        ingredients: [
          { name: '西红柿', quantity: 1, unit: '个' },
          { name: '鸡蛋', quantity: 1, unit: '个' },
          { name: '面条', quantity: 100, unit: '克' },
        ],
        steps: ['煮面', '浇上番茄鸡蛋卤'],
        tags: ['面食'],
      },
    });
    expect(created.status).toBe(201);
    const id = json(created)['id'] as string;
    const patched = await h.request('PATCH', `/api/recipes/${id}`, {
      token,
      body: { ingredients: [{ name: '番茄', quantity: 2, unit: '个' }, { name: '面条' }] },
    });
    expect(json(patched)['ingredients']).toEqual([
      { name: '番茄', quantity: 2, unit: '个' },
      { name: '面条', quantity: null, unit: null },
    ]);
    expect(json(patched)['steps']).toEqual(['煮面', '浇上番茄鸡蛋卤']);
    const byTag = json(await h.request('GET', `/api/recipes?tag=${encodeURIComponent('面食')}`, { token }));
    expect((byTag['recipes'] as Json[]).map((r) => r['name'])).toEqual(['西红柿鸡蛋面']);
    const byName = json(await h.request('GET', `/api/recipes?q=${encodeURIComponent('豆腐')}`, { token }));
    expect((byName['recipes'] as Json[]).map((r) => r['name'])).toEqual(['麻婆豆腐']);

    const search = json(
      await h.request('GET', `/api/recipes/search?ingredients=${encodeURIComponent('西红柿，鸡蛋、葱')}`, {
        token,
      }),
    );
    const matches = search['matches'] as { recipe: Json; matched: string[]; missing: string[] }[];
    expect(matches[0]?.recipe['name']).toBe('番茄炒蛋'); // uses all three
    expect(matches[0]?.matched).toEqual(['西红柿', '鸡蛋', '葱']);
    expect(matches[0]?.missing).toEqual(['白糖', '盐']);
    expect(matches[1]?.recipe['name']).toBe('西红柿鸡蛋面'); // one hit (西红柿 finds its 番茄), fewest other ingredients
    expect(matches.map((m) => m.matched.length)).toEqual(
      [...matches.map((m) => m.matched.length)].sort((a, b) => b - a),
    );

    expect((await h.request('DELETE', `/api/recipes/${id}`, { token })).status).toBe(204);
    expect((await h.request('GET', `/api/recipes/${id}`, { token })).status).toBe(404);
  });

  it('meal plans: the week, add, move, remove; the range is checked', async () => {
    const h = harness();
    const token = await h.login('mama');
    const week = json(await h.request('GET', '/api/meal-plans?week=2026-05-01', { token }));
    expect(week).toMatchObject({ from: '2026-04-27', to: '2026-05-03' }); // Monday to Sunday
    const entries = week['entries'] as Json[];
    expect(entries.map((e) => [e['date'], e['slot'], e['recipeName']])).toEqual([
      ['2026-05-01', 'dinner', '番茄炒蛋'],
      ['2026-05-01', 'dinner', '蒜蓉西兰花'],
      ['2026-05-02', 'lunch', '麻婆豆腐'],
      ['2026-05-02', 'dinner', '可乐鸡翅'],
      ['2026-05-03', 'dinner', '红烧肉'],
    ]);
    const recipeId = entries[0]?.['recipeId'] as string;
    const added = await h.request('POST', '/api/meal-plans', {
      token,
      body: { date: '2026-05-04', slot: 'breakfast', recipeId, servings: 2, note: '周一早饭' },
    });
    expect(added.status).toBe(201);
    const id = json(added)['id'] as string;
    const moved = await h.request('PATCH', `/api/meal-plans/${id}`, {
      token,
      body: { slot: 'lunch', note: null },
    });
    expect(json(moved)).toMatchObject({ date: '2026-05-04', slot: 'lunch', note: null, servings: 2 });
    const nextWeek = json(await h.request('GET', '/api/meal-plans?from=2026-05-04&to=2026-05-10', { token }));
    expect((nextWeek['entries'] as Json[]).map((e) => e['id'])).toEqual([id]);
    expect((await h.request('DELETE', `/api/meal-plans/${id}`, { token })).status).toBe(204);
    const backwards = await h.request('GET', '/api/meal-plans?from=2026-05-10&to=2026-05-04', { token });
    expect(json(backwards)['error']).toMatchObject({ field: 'to' });
    const badWeek = await h.request('GET', '/api/meal-plans?week=2026-13-01', { token });
    expect(json(badWeek)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: 'week' });
    const mixed = await h.request('GET', '/api/meal-plans?week=2026-05-01&from=2026-05-01', { token });
    expect(json(mixed)['error']).toMatchObject({ field: 'from' });
  });

  it('preferences and allergies: list, add, remove', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const profile = json(await h.request('GET', '/api/preferences', { token }));
    expect((profile['allergies'] as Json[]).map((a) => [a['label'], a['person']])).toEqual([
      ['花生', '小宝'],
    ]);
    expect((profile['preferences'] as Json[]).map((p) => p['label']).sort()).toEqual(
      ['不吃香菜', '少辣'].sort(),
    );
    const added = await h.request('POST', '/api/preferences', {
      token,
      body: { kind: 'allergy', label: '芒果', person: '小贾' },
    });
    expect(added.status).toBe(201);
    const id = json(added)['id'] as string;
    expect((await h.request('DELETE', `/api/preferences/${id}`, { token })).status).toBe(204);
    const after = json(await h.request('GET', '/api/preferences', { token }));
    expect((after['allergies'] as Json[]).map((a) => a['label'])).toEqual(['花生']);
  });

  it('roles: owners manage members, members cannot, the last owner stays', async () => {
    const h = harness();
    const owner = await h.login('laowang');
    const member = await h.login('wangshen');
    await h.services.admin.addUser({ username: 'xiaowang', displayName: '小王', password: 'xiaowang-pass' });
    const byMember = await h.request('POST', '/api/household/invitations', {
      token: member,
      body: { username: 'xiaowang' },
    });
    expect(byMember.status).toBe(403);
    expect(json(byMember)['error']).toMatchObject({ code: 'PERMISSION_DENIED' });
    // Members join by invitation (issue 16.10; see invitations.test.ts): invited, then accepted.
    const invited = await h.request('POST', '/api/household/invitations', {
      token: owner,
      body: { username: 'xiaowang' },
    });
    expect(invited.status).toBe(202);
    const invitationId = (json(invited)['invitation'] as Json)['id'] as string;
    const xwToken = (await h.services.auth.login({ username: 'xiaowang', password: 'xiaowang-pass' })).token;
    const accepted = await h.request('POST', `/api/invitations/${invitationId}/accept`, { token: xwToken });
    expect(accepted.status).toBe(200);
    const again = await h.request('POST', '/api/household/invitations', {
      token: owner,
      body: { username: 'xiaowang' },
    });
    expect(again.status).toBe(409); // already a member
    const members = json(await h.request('GET', '/api/household/members', { token: member }))[
      'members'
    ] as Json[];
    const xiaowang = members.find((m) => m['username'] === 'xiaowang');
    const laowang = members.find((m) => m['username'] === 'laowang');
    expect(xiaowang).toMatchObject({ role: 'member' });
    const demoteLast = await h.request('PATCH', `/api/household/members/${laowang?.['userId'] as string}`, {
      token: owner,
      body: { role: 'member' },
    });
    expect(demoteLast.status).toBe(409);
    const leaveLast = await h.request('DELETE', `/api/household/members/${laowang?.['userId'] as string}`, {
      token: owner,
    });
    expect(leaveLast.status).toBe(409);
    const kickByMember = await h.request(
      'DELETE',
      `/api/household/members/${xiaowang?.['userId'] as string}`,
      {
        token: member,
      },
    );
    expect(kickByMember.status).toBe(403);
    const leave = await h.request('DELETE', `/api/household/members/${xiaowang?.['userId'] as string}`, {
      token: xwToken,
    });
    expect(leave.status).toBe(204);
    const creates = await h.request('POST', '/api/households', {
      token: xwToken,
      body: { name: '小王的家' },
    });
    expect(json(creates)).toMatchObject({ name: '小王的家', role: 'owner' });
  });

  it('a user with no household gets 403 on household routes, and unknown routes are JSON 404s', async () => {
    const h = harness();
    await h.services.admin.addUser({ username: 'loner', displayName: '独居', password: 'loner-pass-1' });
    const token = (await h.services.auth.login({ username: 'loner', password: 'loner-pass-1' })).token;
    const reply = await h.request('GET', '/api/fridge', { token });
    expect(reply.status).toBe(403);
    expect(json(await h.request('GET', '/api/auth/me', { token }))).toMatchObject({
      activeHousehold: null,
      households: [],
    });
    const nowhere = await h.request('GET', '/api/nowhere', { token });
    expect(nowhere.status).toBe(404);
    expect(json(nowhere)['error']).toMatchObject({ code: 'NOT_FOUND' });
    expect(json(await h.request('GET', '/health'))).toEqual({ status: 'ok', backend: h.backend });
  });
});

it('the app can be mounted under a prefix: login stays open, the rest stays guarded', async () => {
  const { Hono } = await import('hono');
  const { createKitchenApp } = await import('../src/http/app.js');
  const { createKitchenServices } = await import('../src/services/kitchen-services.js');
  const { seedDemo } = await import('../src/seed/seed.js');
  const { BACKENDS } = await import('./backends.js');
  const pglite = BACKENDS.find((b) => b.name === 'pglite');
  if (pglite === undefined) throw new Error('no pglite backend');
  const opened = await pglite.open();
  try {
    await seedDemo({ db: opened.db });
    const parent = new Hono();
    parent.route('/kitchen', createKitchenApp({ services: createKitchenServices({ db: opened.db }) }));
    const guarded = await parent.request('/kitchen/api/fridge');
    expect(guarded.status).toBe(401);
    const login = await parent.request('/kitchen/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'mama', password: 'demo-mama' }),
    });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    const fridge = await parent.request('/kitchen/api/fridge', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(fridge.status).toBe(200);
  } finally {
    await opened.dispose();
  }
}, 60_000);
