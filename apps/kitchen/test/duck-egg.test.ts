import { describe, expect, it } from 'vitest';
import { runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { createNutritionService } from '../../nutrition-mcp/src/index.js';
import { nutritionTool, type NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { act, final } from './assistant-helpers.js';

/*
 * A duck egg is not a hen's egg: IFCT 2017 has its own entries (M011–M013, quail M014–M015).
 * The kitchen's broad word 蛋 covers 鸡蛋, 鸭蛋 and 鹌鹑蛋, so a 鸭蛋 the table did not know was
 * looked up as 蛋, the poultry egg. Asked in Chinese or in English, the lookup gives the duck's.
 */
const service = createNutritionService();
const lookup: NutritionLookup = async (food) => {
  const outcome = await service.getFood({ name: food });
  return outcome.ok ? outcome.value : null;
};

async function lookUp(food: string) {
  const run = runAgent({
    query: 'q',
    model: scriptModel([act('nutrition_lookup', { food }), final('done')]),
    tools: [nutritionTool(lookup)],
    principal: { id: 'u' },
  });
  await run.result;
  return run.events.find((e): e is ObserveStep => e.type === 'step' && e.phase === 'observe')?.observation;
}

describe('duck and quail eggs through the kitchen nutrition lookup', () => {
  it.each([
    ['鸭蛋', 'M012', 'Egg, duck, whole, raw'],
    ['duck eggs', 'M012', 'Egg, duck, whole, raw'],
    ['鹌鹑蛋', 'M014', 'Egg, quial, whole, raw'],
    ['quail egg', 'M014', 'Egg, quial, whole, raw'],
  ])('%s → %s (%s)', async (food, code, name) => {
    const o = await lookUp(food);
    const entry = (o?.result as { entry?: { code: string; name: string } }).entry;
    expect(entry?.code).toBe(code);
    expect(entry?.name).toBe(name);
  });
});
