import { runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { createNutritionService } from '../../nutrition-mcp/src/index.js';
import { nutritionTool, type NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { act, final } from './assistant-helpers.js';

/** The nutrition server's service in-process (no MCP transport), as the kitchen's lookup. */
export const service = createNutritionService();
const lookup: NutritionLookup = async (food) => {
  const outcome = await service.getFood({ name: food });
  return outcome.ok ? outcome.value : null;
};

/** The observation of one `nutrition_lookup` call for `food`, through a run of the kitchen's tool. */
export async function lookUp(food: string) {
  const run = runAgent({
    query: 'q',
    model: scriptModel([act('nutrition_lookup', { food }), final('done')]),
    tools: [nutritionTool(lookup)],
    principal: { id: 'u' },
  });
  await run.result;
  return run.events.find((e): e is ObserveStep => e.type === 'step' && e.phase === 'observe')?.observation;
}
