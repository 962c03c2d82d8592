import { expect, it } from 'vitest';
import { describeEachBackend, type Harness } from './harness.js';

type Json = Record<string, unknown>;
const body = (r: { body: unknown }) => r.body as Json;

/** One row id of each kind in household 老王家 (B), read straight from the database. */
async function idsOfB(h: Harness) {
  const b = await h.householdId('老王家');
  const one = async (table: string) =>
    (await h.db.query<{ id: string }>(`SELECT id FROM ${table} WHERE household_id = $1 LIMIT 1`, [b]))[0]
      ?.id ?? '';
  const member = await h.db.query<{ user_id: string }>(
    "SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE household_id = $1 AND u.username = 'wangshen'",
    [b],
  );
  return {
    household: b,
    fridge: await one('fridge_items'),
    recipe: await one('recipes'),
    plan: await one('meal_plans'),
    note: await one('dietary_notes'),
    member: member[0]?.user_id ?? '',
  };
}

describeEachBackend('tenant isolation', (harness) => {
  it("a user of A gets the same 404 for B's rows as for ids that do not exist, on every verb", async () => {
    const h = harness();
    const token = await h.login('xiaojia'); // owner of 小贾家 (A) only
    const b = await idsOfB(h);
    const attempts: [string, string, unknown?][] = [
      ['GET', `/api/fridge/${b.fridge}`],
      ['PATCH', `/api/fridge/${b.fridge}`, { quantity: 0 }],
      ['DELETE', `/api/fridge/${b.fridge}`],
      ['POST', `/api/fridge/${b.fridge}/use`, {}],
      ['GET', `/api/recipes/${b.recipe}`],
      ['PATCH', `/api/recipes/${b.recipe}`, { name: '偷来的菜' }],
      ['DELETE', `/api/recipes/${b.recipe}`],
      ['GET', `/api/meal-plans/${b.plan}`],
      ['PATCH', `/api/meal-plans/${b.plan}`, { note: 'x' }],
      ['DELETE', `/api/meal-plans/${b.plan}`],
      ['DELETE', `/api/preferences/${b.note}`],
    ];
    for (const [method, path, payload] of attempts) {
      const theirs = await h.request(method, path, { token, body: payload });
      const missing = await h.request(
        method,
        path.replace(/[0-9a-f-]{36}/, '00000000-0000-4000-8000-000000000000'),
        {
          token,
          body: payload,
        },
      );
      expect(theirs.status, `${method} ${path}`).toBe(404);
      expect(theirs.body, `${method} ${path}`).toEqual(missing.body);
    }
    // Nothing of B changed.
    const after = await idsOfB(h);
    expect(after).toEqual(b);
    const recipe = await h.db.query<{ name: string }>('SELECT name FROM recipes WHERE id = $1', [b.recipe]);
    expect(recipe[0]?.name).not.toBe('偷来的菜');
  });

  it("A's lists never contain a row of B", async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const b = await idsOfB(h);
    const lists = [
      await h.request('GET', '/api/fridge', { token }),
      await h.request('GET', '/api/recipes', { token }),
      await h.request('GET', '/api/recipes/search?ingredients=%E9%B8%A1%E8%9B%8B', { token }), // 鸡蛋: both households have it
      await h.request('GET', '/api/meal-plans?from=2026-04-01&to=2026-05-31', { token }),
      await h.request('GET', '/api/preferences', { token }),
      await h.request('GET', '/api/household/members', { token }),
    ];
    const text = JSON.stringify(lists.map((l) => l.body));
    for (const l of lists) expect(l.status).toBe(200);
    const everyIdOfB = await h.db.query<{ id: string }>(
      `SELECT id FROM fridge_items WHERE household_id = $1 UNION ALL SELECT id FROM recipes WHERE household_id = $1
       UNION ALL SELECT id FROM meal_plans WHERE household_id = $1 UNION ALL SELECT id FROM dietary_notes WHERE household_id = $1`,
      [b.household],
    );
    expect(everyIdOfB.length).toBeGreaterThan(10);
    for (const id of [b.household, b.member, ...everyIdOfB.map((r) => r.id)]) expect(text).not.toContain(id);
    expect(text).not.toContain('鲈鱼');
    expect(text).toContain('番茄炒蛋');
  });

  it("A's owner cannot manage B's members, and cannot plan B's recipe", async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const b = await idsOfB(h);
    const patch = await h.request('PATCH', `/api/household/members/${b.member}`, {
      token,
      body: { role: 'owner' },
    });
    const remove = await h.request('DELETE', `/api/household/members/${b.member}`, { token });
    expect(patch.status).toBe(404);
    expect(remove.status).toBe(404);
    const plan = await h.request('POST', '/api/meal-plans', {
      token,
      body: { date: '2026-05-02', slot: 'dinner', recipeId: b.recipe },
    });
    expect(plan.status).toBe(404);
    expect(body(plan)['error']).toMatchObject({ code: 'NOT_FOUND', field: 'recipeId' });
    const members = await h.db.query('SELECT 1 FROM memberships WHERE household_id = $1', [b.household]);
    expect(members).toHaveLength(3);
  });

  it('a household id in a body or query is refused, never used', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const b = await idsOfB(h);
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '鸭蛋', quantity: 6, unit: '个', householdId: b.household },
    });
    expect(created.status).toBe(400);
    expect(body(created)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: 'householdId' });
    const listed = await h.request('GET', `/api/fridge?householdId=${b.household}`, { token });
    expect(listed.status).toBe(400);
    expect(body(listed)['error']).toMatchObject({ field: 'householdId' });
    const spaced = await h.request(
      'GET',
      `/api/meal-plans?from=2026-05-01&to=2026-05-07&space_id=${b.household}`,
      {
        token,
      },
    );
    expect(spaced.status).toBe(400);
    const rows = await h.db.query("SELECT 1 FROM fridge_items WHERE name = '鸭蛋'");
    expect(rows).toHaveLength(0);
  });

  it('switching to a household you are not in is a 404, like one that does not exist', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const b = await idsOfB(h);
    const theirs = await h.request('POST', '/api/households/active', {
      token,
      body: { householdId: b.household },
    });
    const none = await h.request('POST', '/api/households/active', { token, body: { householdId: 'nope' } });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(none.body);
    const me = await h.request('GET', '/api/auth/me', { token });
    expect(body(me)['activeHousehold']).toMatchObject({ name: '小贾家' });
  });

  it('a member in two households sees only the active one, and switching changes it', async () => {
    const h = harness();
    const token = await h.login('nainai'); // member of both
    const households = body(await h.request('GET', '/api/households', { token }))['households'] as Json[];
    expect(households.map((x) => x['name']).sort()).toEqual(['小贾家', '老王家'].sort());
    const b = await h.householdId('老王家');
    expect(
      (await h.request('POST', '/api/households/active', { token, body: { householdId: b } })).status,
    ).toBe(200);
    const fridge = JSON.stringify(body(await h.request('GET', '/api/fridge', { token })));
    expect(fridge).toContain('鲈鱼');
    expect(fridge).not.toContain('五花肉');
  });

  it('SQL fragments in strings are stored as text and harmless', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const evil = "'; DROP TABLE fridge_items; --";
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: evil, quantity: 1, unit: "个'--" },
    });
    expect(created.status).toBe(201);
    const search = await h.request(
      'GET',
      `/api/recipes/search?ingredients=${encodeURIComponent(`${evil},%,_`)}`,
      {
        token,
      },
    );
    expect(search.status).toBe(200);
    expect(body(search)['matches']).toEqual([]); // '%' and '_' are characters, not wildcards
    const q = await h.request('GET', `/api/recipes?q=${encodeURIComponent("' OR 1=1 --")}`, { token });
    expect(body(q)['recipes']).toEqual([]);
    const note = await h.request('POST', '/api/preferences', {
      token,
      body: { kind: 'preference', label: 'x"); DELETE FROM users; --' },
    });
    expect(note.status).toBe(201);
    const stored = await h.db.query<{ name: string }>('SELECT name FROM fridge_items WHERE name = $1', [
      evil,
    ]);
    expect(stored).toHaveLength(1);
    expect((await h.db.query('SELECT 1 FROM users')).length).toBeGreaterThan(0);
    const listed = body(await h.request('GET', '/api/fridge', { token }))['items'] as Json[];
    expect(listed.map((i) => i['name'])).toContain(evil);
  });

  it('the membership check runs on every call: a removed member loses access at once', async () => {
    const h = harness();
    const owner = await h.login('xiaojia');
    const a = await h.householdId('小贾家');
    const mamaToken = await h.login('mama');
    const mamaId =
      (await h.db.query<{ id: string }>("SELECT id FROM users WHERE username = 'mama'"))[0]?.id ?? '';
    expect((await h.request('GET', '/api/fridge', { token: mamaToken })).status).toBe(200);
    expect((await h.request('DELETE', `/api/household/members/${mamaId}`, { token: owner })).status).toBe(
      204,
    );
    const after = await h.request('GET', '/api/fridge', { token: mamaToken });
    expect(after.status).toBe(403);
    // The service layer itself refuses a stale principal that still names the household.
    await expect(h.services.fridge.list({ userId: mamaId, householdId: a })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await h.services.admin.addMember(a, 'mama', 'member'); // restore for other tests
  });
});
