import { describe, expect, it } from 'vitest';
import type { Observation, ToolContext } from 'reins';
import { kitchenAnswer } from '../src/assistant/cards.js';
import { finalizeKitchenAnswer } from '../src/assistant/kitchen-answer.js';
import { createNutritionService } from '../../nutrition-mcp/src/index.js';
import { deriveDishNutrition } from '../src/assistant/dish-nutrition.js';
import type { NutritionLookup } from '../src/assistant/nutrition-tool.js';
import type { Recipe } from '../src/domain/types.js';

/*
 * The nutrition server gives the oils `energyKcal: null` ("not given", IFCT has 0 kJ next to
 * 100 g fat). A dish with 花生油 summed its energy over the other ingredients and said "计入 2/2
 * 种配料" (2 of 2 counted): ~265 kcal of oil left out of the total without a word. Now the oil's
 * gap is listed on the ingredient (`notGiven`) and said in the card's note; the table's numbers
 * stay the table's (no computed 9 kcal/g).
 */
const service = createNutritionService();
const lookup: NutritionLookup = async (food) => {
  const outcome = await service.getFood({ name: food });
  return outcome.ok ? outcome.value : null;
};
const ctx = { signal: new AbortController().signal } as unknown as ToolContext;

const recipe: Recipe = {
  id: 'r1',
  name: '炒青椒',
  servings: 1,
  ingredients: [
    { name: '青椒', quantity: 200, unit: '克' },
    { name: '花生油', quantity: 30, unit: '毫升' },
  ],
  steps: [],
  tags: [],
  version: 1,
};

describe('dish nutrition with an ingredient whose energy the table does not give', () => {
  it('lists the gap on the ingredient, and keeps it out of that sum only', async () => {
    const dish = await deriveDishNutrition(recipe, lookup, ctx);
    const pepper = dish?.ingredients.find((i) => i.name === '青椒');
    const oil = dish?.ingredients.find((i) => i.name === '花生油');
    expect(oil).toMatchObject({ status: 'counted', notGiven: ['energyKcal'] });
    expect(pepper?.notGiven).toBeUndefined();
    expect(dish?.total.fatG).toBeGreaterThan(30); // the oil's fat is in the fat sum
    const pepperOnly = await deriveDishNutrition(
      { ...recipe, ingredients: recipe.ingredients.slice(0, 1) },
      lookup,
      ctx,
    );
    expect(dish?.total.energyKcal).toBe(pepperOnly?.total.energyKcal); // the energy is the pepper's
  });

  it("the card's note says what the sums leave out", async () => {
    const dish = await deriveDishNutrition(recipe, lookup, ctx);
    const observation: Observation = {
      actId: 'a1',
      tool: 'nutrition_lookup',
      status: 'ok',
      source: 'tool:nutrition_lookup',
      durationMs: 1,
      result: {
        food: '炒青椒',
        found: true,
        provenance: 'mcp_derived',
        dish: { ...dish, basis: 'per serving, computed from the recipe ingredients' },
      },
    };
    const card = { type: 'nutrition', food: '炒青椒', values: { energyKcal: 1 }, provenance: 'mcp_exact' };
    const zh = finalizeKitchenAnswer(kitchenAnswer.parse({ reply: '好的', cards: [card] }), {
      observations: [observation],
    });
    expect((zh.cards[0] as { note: string }).note).toContain('营养表未给出、未计入：花生油（热量）');
    const en = finalizeKitchenAnswer(kitchenAnswer.parse({ reply: 'OK', cards: [card] }), {
      observations: [observation],
    });
    expect((en.cards[0] as { note: string }).note).toContain(
      'not given by the table, so not in the sums: 花生油 (energy)',
    );
  });
});
