import { expect, it } from 'vitest';
import { kitchenReads } from '../src/services/assistant-reads.js';
import { fromReinsPrincipal, toReinsPrincipal } from '../src/services/principal.js';
import { describeEachBackend } from './harness.js';

describeEachBackend('service layer (what the assistant tools will call)', (harness) => {
  it('reads through a Reins principal: the household comes from its trusted claims only', async () => {
    const h = harness();
    const principal = await h.principal('laowang');
    const reins = toReinsPrincipal(principal);
    expect(reins).toEqual({ id: principal.userId, claims: { householdId: principal.householdId } });
    const back = fromReinsPrincipal(reins);
    const items = await h.services.fridge.list(back, { expiringWithinDays: 2 });
    expect(items.map((i) => i.name)).toEqual(['鲈鱼', '老豆腐']);
    // A principal claiming a household its user is not in gets nothing.
    const forged = fromReinsPrincipal({ ...reins, claims: { householdId: await h.householdId('小贾家') } });
    await expect(h.services.fridge.list(forged)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(
      h.services.recipes.searchByIngredients(forged, { ingredients: ['番茄'] }),
    ).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });

  it('recipe search tolerates Chinese synonyms and broader names, and ranks by ingredients used', async () => {
    const h = harness();
    const p = await h.principal('xiaojia');
    const names = async (ingredients: string[]) =>
      (await h.services.recipes.searchByIngredients(p, { ingredients })).map((m) => m.recipe.name);
    expect(await names(['西红柿'])).toEqual(['番茄炒蛋']);
    // 猪里脊, 五花肉, 肉末: fewest ingredients first (4), then by name in code-point order (both 6)
    expect(await names(['猪肉'])).toEqual(['青椒肉丝', '红烧肉', '麻婆豆腐']);
    expect(await names(['豆腐'])).toEqual(['麻婆豆腐']); // 嫩豆腐
    expect(await names(['ＷＨＡＴ'])).toEqual([]);
    const ranked = await h.services.recipes.searchByIngredients(p, { ingredients: ['鸡翅', '可乐', '姜'] });
    expect(ranked[0]).toMatchObject({
      recipe: { name: '可乐鸡翅' },
      matched: ['鸡翅', '可乐', '姜'],
      missing: ['生抽'],
    });
    expect(ranked[1]?.matched).toEqual(['姜']);
  });

  it("the other household's copy of a dish is never mixed in", async () => {
    const h = harness();
    const wang = await h.principal('laowang');
    const matches = await h.services.recipes.searchByIngredients(wang, { ingredients: ['番茄', '鸡蛋'] });
    expect(matches).toHaveLength(1);
    expect(matches[0]?.recipe.steps).toEqual(['老王家的做法：不放糖，鸡蛋多一个']);
  });

  it('meal plan for a date range and the household profile', async () => {
    const h = harness();
    const p = await h.principal('xiaojia');
    const plan = await h.services.mealPlans.list(p, { from: '2026-05-02', to: '2026-05-02' });
    expect(plan.map((e) => `${e.slot}:${e.recipeName}`)).toEqual(['lunch:麻婆豆腐', 'dinner:可乐鸡翅']);
    await expect(
      h.services.mealPlans.list(p, { from: '2026-01-01', to: '2026-12-31' }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      field: 'to',
    });
    const profile = await h.services.preferences.profile(p);
    expect(profile.allergies.map((a) => a.label)).toEqual(['花生']);
  });

  it('the assistant reads: household from the principal, a household id in the input refused', async () => {
    const h = harness();
    const reads = kitchenReads(h.services);
    const xiaojia = toReinsPrincipal(await h.principal('xiaojia'));
    const b = await h.householdId('老王家');
    for (const call of [
      () => reads.fridgeItems(xiaojia, { householdId: b }),
      () => reads.searchRecipes(xiaojia, { ingredients: ['番茄'], space_id: b }),
      () => reads.mealPlan(xiaojia, { from: '2026-05-01', to: '2026-05-07', householdId: b }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    }
    const items = await reads.fridgeItems(xiaojia, { expiringWithinDays: 1 });
    expect(items.items.map((i) => i.name)).toEqual(['牛奶', '嫩豆腐', '肉末']);
    expect(items.total).toBe(3);
    const plan = await reads.mealPlan(xiaojia, { from: '2026-05-01', to: '2026-05-01' });
    expect(plan.map((e) => e.recipeName)).toEqual(['番茄炒蛋', '蒜蓉西兰花']);
    expect((await reads.householdProfile(xiaojia)).allergies.map((a) => a.label)).toEqual(['花生']);
    const { matches } = await reads.searchRecipes(xiaojia, { ingredients: ['可乐'] });
    expect(matches.map((m) => m.recipe.name)).toEqual(['可乐鸡翅']);
    // No principal claim, no household: refused, not defaulted.
    await expect(reads.householdProfile({ id: xiaojia.id })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });

  it('recipes read in one statement carry the same ingredients as a recipe read alone', async () => {
    const h = harness();
    const p = await h.principal('xiaojia');
    // A fractional quantity and one without quantity or unit, in order, must survive the JSON column.
    const made = await h.services.recipes.create(p, {
      name: '盐水毛豆',
      servings: 2,
      ingredients: [
        { name: '毛豆', quantity: 0.35, unit: '千克' },
        { name: '盐', quantity: null, unit: null },
        { name: '八角', quantity: 2, unit: '个' },
      ],
      steps: ['煮'],
    });
    const listed = await h.services.recipes.list(p, {});
    expect(listed.find((r) => r.id === made.id)).toEqual(made);
    for (const recipe of listed) expect(recipe).toEqual(await h.services.recipes.get(p, recipe.id));
    const { matches } = await h.services.recipes.matchAtHome(p, {});
    expect(matches.length).toBeGreaterThan(0);
    for (const m of matches) expect(m.recipe).toEqual(await h.services.recipes.get(p, m.recipe.id));
    await h.services.recipes.remove(p, made.id);
  });
});
