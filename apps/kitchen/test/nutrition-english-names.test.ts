import { describe, expect, it } from 'vitest';
import { runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { chineseFoodName } from '../src/domain/food-names.js';
import { nutritionTool, type NutritionEntry, type NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { act, final } from './assistant-helpers.js';

/*
 * Issue 19: "How many calories in 100 g of pork?" got "Which food or dish?". English food names
 * now map to the Chinese names the table's aliases use, on the lookup path itself, so every
 * model (not only the demo) finds pork as it finds 猪肉.
 */
const pork: NutritionEntry = {
  code: 'M023',
  name: 'Pork, shoulder',
  source: 'IFCT 2017',
  per100g: { energyKcal: 263, proteinG: 17.4, fatG: 21, carbohydrateG: 0 },
};

function chineseOnly() {
  const asked: string[] = [];
  const lookup: NutritionLookup = (food) => {
    asked.push(food);
    return Promise.resolve(food === '猪肉' ? pork : null);
  };
  return { lookup, asked };
}

async function lookUp(food: string, lookup: NutritionLookup) {
  const run = runAgent({
    query: 'q',
    model: scriptModel([act('nutrition_lookup', { food }), final('done')]), // any model, not the demo
    tools: [nutritionTool(lookup)],
    principal: { id: 'u' },
  });
  await run.result;
  return run.events.find((e): e is ObserveStep => e.type === 'step' && e.phase === 'observe')?.observation;
}

describe('nutrition lookup: English food names', () => {
  it.each([
    ['pork', '猪肉'],
    ['Pork', '猪肉'],
    ['ＰＯＲＫ', '猪肉'],
    ['rice', '大米'],
    ['eggs', '鸡蛋'],
    ['an egg', '鸡蛋'],
    ['chicken wings', '鸡翅'],
  ])('%s → %s', (english, chinese) => {
    expect(chineseFoodName(english)).toBe(chinese);
  });

  it('a Chinese or unknown name is left as written', () => {
    expect(chineseFoodName('猪肉')).toBeUndefined();
    // A name like an Object.prototype key is no food (it returned a function).
    for (const name of ['constructor', 'toString', '__proto__', 'the constructor'])
      expect(chineseFoodName(name)).toBeUndefined();
    expect(chineseFoodName('durian')).toBeUndefined();
  });

  it('"pork" from any model finds the table entry of 猪肉, and keeps the name asked', async () => {
    const { lookup, asked } = chineseOnly();
    const o = await lookUp('pork', lookup);
    expect(o?.status).toBe('ok');
    expect(o?.result).toMatchObject({ food: 'pork', found: true, provenance: 'mcp_exact' });
    expect(asked).toEqual(['猪肉']);
  });

  it('a mapped name the table lacks is tried as written too, then reported as no data', async () => {
    const { lookup, asked } = chineseOnly();
    const o = await lookUp('tofu', lookup);
    expect(o?.result).toMatchObject({ food: 'tofu', found: false });
    expect(asked).toEqual(['豆腐', 'tofu']);
  });
});
