import { describe, expect, it } from 'vitest';
import type { ToolContext } from 'reins';
import { createNutritionService } from '../../nutrition-mcp/src/index.js';
import { deriveDishNutrition } from '../src/assistant/dish-nutrition.js';
import { broaderName } from '../src/domain/ingredient-names.js';
import type { NutritionLookup } from '../src/assistant/nutrition-tool.js';
import type { Recipe } from '../src/domain/types.js';

/*
 * docs/kitchen.md: "A cut with no entry is looked up as its meat (五花肉, 里脊 → 猪肉)".
 * Beef cuts (牛里脊, 牛肉末 are listed under 牛肉 in BROADER) must be looked up as beef, and a
 * chicken cut as chicken — they were looked up as pork because their names contain 里脊 / 肉末 / 肉丝.
 */
const service = createNutritionService();
const lookup: NutritionLookup = async (food) => {
  const outcome = await service.getFood({ name: food });
  return outcome.ok ? outcome.value : null;
};
const ctx = { signal: new AbortController().signal } as unknown as ToolContext;

const recipe = (ingredient: string): Recipe => ({
  id: 'r1',
  name: 'dish',
  servings: 1,
  ingredients: [{ name: ingredient, quantity: 200, unit: '克' }],
  steps: [],
  tags: [],
  version: 1,
});

describe('dish nutrition: a cut is looked up as its own meat', () => {
  it.each([
    ['牛里脊', /^Beef/],
    ['牛肉末', /^Beef/],
  ])('%s is counted as %s, not pork', async (ingredient, meat) => {
    const dish = await deriveDishNutrition(recipe(ingredient), lookup, ctx);
    expect(dish?.ingredients[0]?.matched).toMatch(meat);
  });

  it('鸡肉丝 (shredded chicken) is not counted as pork', async () => {
    const dish = await deriveDishNutrition(recipe('鸡肉丝'), lookup, ctx);
    expect(dish?.ingredients[0]?.matched ?? '').not.toMatch(/^Pork/);
  });
});

describe('broaderName', () => {
  it('names the broad word of a cut', () => {
    expect(broaderName('五花肉')).toBe('猪肉');
    expect(broaderName('猪里脊')).toBe('猪肉');
    expect(broaderName('肉丝')).toBe('猪肉');
    expect(broaderName('牛里脊')).toBe('牛肉');
    expect(broaderName('牛肉末')).toBe('牛肉');
    expect(broaderName('鸡肉丝')).toBe('鸡肉');
    expect(broaderName('鸡胸')).toBe('鸡肉');
    expect(broaderName('鹌鹑蛋')).toBe('蛋');
  });

  it('leaves alone a broad word itself and a name that holds no listed cut', () => {
    expect(broaderName('猪肉')).toBeUndefined();
    expect(broaderName('辣椒油')).toBeUndefined(); // chili oil is not chili
    expect(broaderName('蛋黄酱')).toBeUndefined();
    expect(broaderName('豆腐')).toBeUndefined();
  });
});
