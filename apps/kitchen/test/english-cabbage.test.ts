import { describe, expect, it } from 'vitest';
import { runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { createNutritionService } from '../../nutrition-mcp/src/index.js';
import { nutritionTool, type NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { act, final } from './assistant-helpers.js';

/*
 * food-names.ts maps English names to "the Chinese names ... the nutrition table's aliases use",
 * "so 'calories in pork' and '猪肉的热量' find the same entry". The nutrition server's own alias
 * table says cabbage = 卷心菜/包菜/圆白菜 (Cabbage, green, C015) and 白菜 = Chinese cabbage
 * (C013). Asking the kitchen for "cabbage" must give the entry the table gives for "cabbage" (it
 * mapped cabbage to 白菜).
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

describe('English "cabbage" through the kitchen nutrition lookup', () => {
  it('is the table entry for cabbage (Cabbage, green), not Chinese cabbage', async () => {
    const direct = await service.getFood({ name: 'cabbage' });
    expect(direct.ok && direct.value.code).toBe('C015');
    const o = await lookUp('cabbage');
    expect((o?.result as { entry?: { code: string; name: string } }).entry?.name).toBe('Cabbage, green');
  });
});
