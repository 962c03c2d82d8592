import { expect, it } from 'vitest';
import type { KitchenPrincipal } from '../src/services/principal.js';
import { describeEachBackend, type Harness } from './harness.js';

/**
 * The hot reads of an assistant run carry the membership check inside their one statement
 * (`AND EXISTS (SELECT 1 FROM memberships ...)`), and only an empty result costs a second one.
 * A non-member, or a member removed a moment ago, must still get requireMember's exact error
 * and none of the household's rows.
 */
const folded = (h: Harness, p: KitchenPrincipal) => ({
  'preferences.profile': async () => {
    const profile = await h.services.preferences.profile(p);
    return [...profile.allergies, ...profile.preferences];
  },
  'fridge.overview': async () => (await h.services.fridge.overview(p, {})).items,
  'recipes.matchAtHome': async () => (await h.services.recipes.matchAtHome(p, {})).matches,
  'recipes.list': () => h.services.recipes.list(p, {}),
  'mealPlans.list': () => h.services.mealPlans.list(p, { from: '2026-04-01', to: '2026-05-31' }),
});

async function userId(h: Harness, username: string): Promise<string> {
  const rows = await h.db.query<{ id: string }>('SELECT id FROM users WHERE username = $1', [username]);
  if (rows[0] === undefined) throw new Error(`no user ${username}`);
  return rows[0].id;
}

/** The error requireMember gives this principal (fridge.list still starts with it). */
async function requireMemberError(h: Harness, p: KitchenPrincipal): Promise<unknown> {
  return h.services.fridge.list(p).then(
    () => new Error('fridge.list let a non-member in'),
    (error: unknown) => error,
  );
}

async function expectDeniedEverywhere(h: Harness, p: KitchenPrincipal) {
  const expected = await requireMemberError(h, p);
  expect(expected).toMatchObject({
    code: 'PERMISSION_DENIED',
    message: 'not a member of the active household',
  });
  for (const [name, read] of Object.entries(folded(h, p))) {
    const outcome = await read().then(
      (rows) => ({ rows }),
      (error: unknown) => ({ error }),
    );
    expect(outcome, name).toEqual({ error: expected });
  }
}

describeEachBackend('membership folded into the assistant reads', (harness) => {
  it("a member reads the household's rows through every folded read", async () => {
    const h = harness();
    const member = await h.principal('wangshen'); // member of 老王家 only
    expect(member.householdId).toBe(await h.householdId('老王家'));
    for (const [name, read] of Object.entries(folded(h, member))) {
      expect((await read()).length, name).toBeGreaterThan(0);
    }
  });

  it("a user of another household gets requireMember's denial from each, and no rows", async () => {
    const h = harness();
    const outsider = { userId: await userId(h, 'xiaojia'), householdId: await h.householdId('老王家') };
    await expectDeniedEverywhere(h, outsider);
  });

  it('a member removed a moment ago is denied on the very next read (nothing cached)', async () => {
    const h = harness();
    const member = await h.principal('wangshen');
    const b = await h.householdId('老王家');
    expect((await h.services.fridge.overview(member, {})).items.length).toBeGreaterThan(0);
    await h.db.query('DELETE FROM memberships WHERE household_id = $1 AND user_id = $2', [b, member.userId]);
    try {
      await expectDeniedEverywhere(h, member);
    } finally {
      await h.services.admin.addMember(b, 'wangshen', 'member');
    }
    expect((await h.services.fridge.overview(member, {})).items.length).toBeGreaterThan(0);
  });

  it("a member's empty result is empty, not denied; no active household is denied before any SQL", async () => {
    const h = harness();
    const member = await h.principal('wangshen');
    expect(await h.services.recipes.list(member, { q: '不存在的菜' })).toEqual([]);
    expect(await h.services.mealPlans.list(member, { from: '2030-01-01', to: '2030-01-07' })).toEqual([]);
    expect(await h.services.fridge.overview(member, { location: 'pantry', expiringWithinDays: 0 })).toEqual({
      items: [],
      total: 0,
    });
    const homeless = { userId: member.userId, householdId: null };
    for (const [name, read] of Object.entries(folded(h, homeless))) {
      await expect(read(), name).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
        message: 'no active household: choose one first',
      });
    }
  });
});
