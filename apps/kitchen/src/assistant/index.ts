export {
  kitchenAgent,
  KITCHEN_INSTRUCTIONS,
  type KitchenAgentOptions,
  type KitchenAgentDefinition,
} from './agent.js';
export { kitchenTools } from './kitchen-tools.js';
export {
  nutritionTool,
  nutritionOutput,
  type NutritionLookup,
  type NutritionEntry,
  type NutritionPer100g,
} from './nutrition-tool.js';
export { mcpNutritionLookup, type NutritionToolSource } from './mcp-nutrition.js';
