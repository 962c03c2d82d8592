import { expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { kitchenAgent } from '../src/assistant/agent.js';
import { actions, ask, call, fakeNutrition, final, resultOf } from './assistant-helpers.js';
import { describeEachBackend, type Harness } from './harness.js';

type Json = Record<string, unknown>;

/** One step with all five tools at once, then an answer. */
const allFive = () =>
  scriptModel([
    actions([
      call('fridge_items', { expiringWithinDays: 3 }),
      call('search_recipes', { ingredients: ['鸡蛋'] }),
      call('meal_plan', { from: '2026-04-27', to: '2026-05-10' }),
      call('household_preferences', {}),
      call('nutrition_lookup', { food: '鸡蛋' }),
    ]),
    final('根据工具数据回答。'),
  ]);

async function idsOf(h: Harness, household: string): Promise<Set<string>> {
  const id = await h.householdId(household);
  const rows = await h.db.query<{ id: string }>(
    `SELECT id FROM fridge_items WHERE household_id = $1 UNION ALL SELECT id FROM recipes WHERE household_id = $1
     UNION ALL SELECT id FROM meal_plans WHERE household_id = $1 UNION ALL SELECT id FROM dietary_notes WHERE household_id = $1`,
    [id],
  );
  return new Set(rows.map((r) => r.id));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describeEachBackend('kitchen assistant tools', (harness) => {
  it('the agent is bounded (4 steps), read-only but for remember_memory (which waits for approval), instructions in Chinese and English', () => {
    const h = harness();
    const agent = kitchenAgent(h.services, { model: scriptModel([]), nutrition: fakeNutrition().lookup });
    expect(agent.tools.map((t) => t.name).sort()).toEqual(
      [
        'fridge_items',
        'household_preferences',
        'meal_plan',
        'nutrition_lookup',
        'search_recipes',
        'recall_memories',
        'remember_memory',
      ].sort(),
    );
    const writers = agent.tools.filter((t) => !t.readOnly);
    expect(writers.map((t) => [t.name, t.needsApproval])).toEqual([['remember_memory', true]]);
    expect(agent.limits.maxSteps).toBe(4);
    expect(
      kitchenAgent(h.services, {
        model: scriptModel([]),
        nutrition: fakeNutrition().lookup,
        limits: { maxSteps: 9 },
      }).limits.maxSteps,
    ).toBe(4);
    expect(agent.instructions).toMatch(/只根据工具返回的数据/);
    expect(agent.instructions).toMatch(/say the data is missing/);
    // No tool's input schema names a household, space or user.
    for (const t of agent.tools)
      expect(JSON.stringify(t.input.toJSONSchema())).not.toMatch(/household|space|user/i);
  });

  for (const [user, household] of [
    ['xiaojia', '小贾家'],
    ['mama', '小贾家'],
    ['laowang', '老王家'],
    ['wangshen', '老王家'],
  ] as const) {
    it(`${user} sees ${household}'s data, and only it, through every tool`, async () => {
      const h = harness();
      const principal = await h.principal(user);
      expect(principal.householdId).toBe(await h.householdId(household));
      const run = await ask(h, principal, allFive());
      expect(run.record.status).toBe('success');
      expect(run.observations.map((o) => o.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);

      const fridge = resultOf(run, 'fridge_items')['items'] as Json[];
      expect(fridge.length).toBeGreaterThan(0);
      for (const item of fridge) expect(item['daysLeft'] as number).toBeLessThanOrEqual(3);
      const recipes = (resultOf(run, 'search_recipes')['matches'] as { recipe: Json }[]).map(
        (m) => m.recipe['name'],
      );
      expect(recipes).toContain('番茄炒蛋'); // both households have their own
      const plan = resultOf(run, 'meal_plan')['entries'] as Json[];
      expect(plan.length).toBeGreaterThan(0);
      const profile = resultOf(run, 'household_preferences') as { allergies: Json[] };
      expect(profile.allergies.map((a) => a['label'])).toEqual(household === '小贾家' ? ['花生'] : ['虾']);

      // Every row id in every observation belongs to this household.
      const mine = await idsOf(h, household);
      const seen = JSON.stringify(run.observations).match(UUID) ?? [];
      const rowIds = seen.filter((id) => !run.observations.some((o) => o.actId === id));
      expect(rowIds.length).toBeGreaterThan(0);
      for (const id of rowIds) expect(mine, id).toContain(id);
    });
  }

  it('nainai (both households) sees the household her session has active, never both', async () => {
    const h = harness();
    const user = (await h.principal('nainai')).userId;
    for (const household of ['小贾家', '老王家']) {
      const householdId = await h.householdId(household);
      const run = await ask(h, { userId: user, householdId }, allFive());
      const mine = await idsOf(h, household);
      const rowIds = (JSON.stringify(run.observations).match(UUID) ?? []).filter(
        (id) => !run.observations.some((o) => o.actId === id),
      );
      expect(rowIds.length).toBeGreaterThan(0);
      for (const id of rowIds) expect(mine, id).toContain(id);
    }
  });

  it('a forged householdId claim for a household the user is not in is refused by the service layer (as not found)', async () => {
    const h = harness();
    const xiaojia = await h.principal('xiaojia');
    const run = await ask(
      h,
      { userId: xiaojia.userId, householdId: await h.householdId('老王家') },
      allFive(),
    );
    const kitchen = run.observations.filter((o) => o.tool !== 'nutrition_lookup');
    expect(kitchen.map((o) => o.error?.code)).toEqual(['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND']);
    expect(JSON.stringify(run.events)).not.toContain('糖醋排骨');
  });

  it('service validation errors come back as INVALID_PARAMETER naming the field', async () => {
    const h = harness();
    const run = await ask(
      h,
      await h.principal('xiaojia'),
      scriptModel([
        actions([
          call('meal_plan', { from: '2026-05-10', to: '2026-05-01' }),
          call('meal_plan', { from: '2026-02-30', to: '2026-03-01' }),
        ]),
        final('没有数据'),
      ]),
    );
    expect(run.observations.map((o) => o.error?.code)).toEqual(['INVALID_PARAMETER', 'INVALID_PARAMETER']);
    // The two calls run side by side: pair each observation with its act, not by finishing order.
    const firstAct = run.events.find((e) => e.type === 'step' && e.phase === 'act');
    const first = run.observations.find(
      (o) => firstAct !== undefined && 'actId' in firstAct && o.actId === firstAct.actId,
    );
    expect(JSON.stringify(first?.error)).toContain('to');
  });
});
