import { describe, expect, it } from 'vitest';
import type { Observation } from 'reins';
import { kitchenAnswer, type KitchenAnswer } from '../src/assistant/cards.js';
import { finalizeKitchenAnswer } from '../src/assistant/kitchen-answer.js';

const obs = (tool: string, result: unknown, status: Observation['status'] = 'ok'): Observation => ({
  actId: `act-${tool}`,
  tool,
  status,
  source: `tool:${tool}`,
  durationMs: 1,
  ...(status === 'ok'
    ? { result }
    : { error: { code: 'SERVICE_UNAVAILABLE', message: 'down', layer: 'status' as const } }),
});

const egg = obs('nutrition_lookup', {
  food: '鸡蛋',
  found: true,
  provenance: 'mcp_exact',
  entry: {
    code: 'O016',
    name: 'Egg, poultry, whole, raw',
    matchedAlias: '鸡蛋',
    note: null,
    source: 'IFCT 2017',
    basis: 'per 100 g edible portion',
    per100g: { energyKcal: 134.5, proteinG: 13.3, fatG: 9.4, carbohydrateG: 0, fibreG: 0, sodiumMg: 136 },
  },
});

const dish = obs('nutrition_lookup', {
  food: '番茄炒蛋',
  found: true,
  provenance: 'mcp_derived',
  dish: {
    recipeId: 'r-1',
    recipeName: '番茄炒蛋',
    servings: 2,
    basis: 'per serving, computed from the recipe ingredients',
    perServing: { energyKcal: 120, proteinG: 10, fatG: 7, carbohydrateG: 5 },
    total: { energyKcal: 240, proteinG: 20, fatG: 14, carbohydrateG: 10 },
    ingredients: [
      { name: '番茄', grams: 300, status: 'counted', matched: 'Tomato, ripe' },
      { name: '盐', grams: 2, status: 'no_entry', matched: null },
    ],
  },
});

const answer = (cards: unknown[], reply = '好的'): KitchenAnswer => kitchenAnswer.parse({ reply, cards });

describe('finalizeKitchenAnswer: labels are stamped by code', () => {
  it('a model that writes "mcp_exact" and its own numbers gets the table values back', () => {
    const out = finalizeKitchenAnswer(
      answer([
        {
          type: 'nutrition',
          food: '鸡蛋',
          values: { energyKcal: 999, proteinG: 1 },
          provenance: 'mcp_exact',
          source: 'verified by me',
        },
      ]),
      { observations: [egg] },
    );
    expect(out.cards[0]).toMatchObject({
      food: '鸡蛋',
      basis: 'per_100g',
      values: { energyKcal: 134.5, proteinG: 13.3, fatG: 9.4, carbohydrateG: 0 },
      provenance: 'mcp_exact',
      source: 'IFCT 2017: Egg, poultry, whole, raw (O016)',
    });
  });

  it('a dish gets per-serving mcp_derived values from its observation', () => {
    const out = finalizeKitchenAnswer(
      answer([{ type: 'nutrition', food: '番茄炒蛋', values: { energyKcal: 50 }, provenance: 'mcp_exact' }]),
      { observations: [dish] },
    );
    expect(out.cards[0]).toMatchObject({
      basis: 'per_serving',
      values: { energyKcal: 120, proteinG: 10 },
      provenance: 'mcp_derived',
    });
    expect((out.cards[0] as { note: string }).note).toContain('1/2');
  });

  it('numbers with no observation behind them are llm_estimate, whatever the model claims', () => {
    const out = finalizeKitchenAnswer(
      answer([
        {
          type: 'nutrition',
          food: '豆腐',
          values: { energyKcal: 81 },
          provenance: 'mcp_exact',
          source: 'IFCT',
        },
      ]),
      { observations: [egg] },
    );
    expect(out.cards[0]).toMatchObject({ provenance: 'llm_estimate', values: { energyKcal: 81 } });
    expect(out.cards[0]).not.toHaveProperty('source');
  });

  it('a failed lookup makes the reply say nutrition data is unavailable', () => {
    const down = obs('nutrition_lookup', undefined, 'error');
    const out = finalizeKitchenAnswer(
      answer(
        [{ type: 'nutrition', food: '鸡蛋', values: { energyKcal: 140 }, provenance: 'mcp_exact' }],
        '鸡蛋很好',
      ),
      { observations: [down] },
    );
    expect(out.reply).toContain('营养数据暂时不可用');
    expect(out.cards[0]).toMatchObject({ provenance: 'llm_estimate' });
    const en = finalizeKitchenAnswer(answer([], 'Eggs are great'), { observations: [down] });
    expect(en.reply).toContain('Nutrition data is unavailable');
    const ok = finalizeKitchenAnswer(answer([], '鸡蛋很好'), { observations: [egg] });
    expect(ok.reply).toBe('鸡蛋很好');
  });

  it('recipe ids and "planned" come only from what the tools returned', () => {
    const search = obs('search_recipes', {
      matches: [
        {
          recipe: { id: 'r-9', name: '麻婆豆腐', servings: 3, ingredients: [], steps: [], tags: [] },
          matched: ['豆腐'],
          missing: [],
        },
      ],
      itemsAtHome: 12,
    });
    const plan = obs('meal_plan', {
      from: '2026-04-27',
      to: '2026-05-03',
      entries: [
        {
          id: 'p-1',
          date: '2026-05-01',
          slot: 'dinner',
          recipeId: 'r-1',
          recipeName: '番茄炒蛋',
          servings: null,
          note: null,
        },
      ],
    });
    const out = finalizeKitchenAnswer(
      answer([
        { type: 'recipe', name: '麻婆豆腐', recipeId: 'someone-elses-id', origin: 'suggestion' },
        { type: 'recipe', name: '佛跳墙', recipeId: 'r-1', origin: 'household' },
        {
          type: 'meal_plan',
          title: '本周',
          entries: [
            { date: '2026-05-01', slot: 'dinner', recipeName: '番茄炒蛋', status: 'suggested' },
            { date: '2026-05-02', slot: 'dinner', recipeName: '麻婆豆腐', status: 'planned', recipeId: 'x' },
          ],
        },
      ]),
      { observations: [search, plan] },
    );
    expect(out.cards[0]).toMatchObject({ recipeId: 'r-9', origin: 'household' });
    expect(out.cards[1]).toMatchObject({ origin: 'suggestion' });
    expect(out.cards[1]).not.toHaveProperty('recipeId');
    expect(out.cards[2]).toMatchObject({
      entries: [
        { recipeName: '番茄炒蛋', status: 'planned', recipeId: 'r-1' },
        { recipeName: '麻婆豆腐', status: 'suggested', recipeId: 'r-9' },
      ],
    });
  });
});
