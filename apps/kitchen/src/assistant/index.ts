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
  type DishSource,
  type NutritionToolOptions,
  type NutritionLookup,
  type NutritionEntry,
  type NutritionPer100g,
} from './nutrition-tool.js';
export { mcpNutritionLookup, type NutritionToolSource } from './mcp-nutrition.js';
export {
  kitchenAnswer,
  kitchenCard,
  recipeCard,
  nutritionCard,
  mealPlanCard,
  mealPlanEntryCard,
  nutrientValues,
  PROVENANCES,
  type Provenance,
  type KitchenAnswer,
  type KitchenCard,
  type RecipeCard,
  type NutritionCard,
  type MealPlanCard,
  type MealPlanEntryCard,
  type NutrientValues,
} from './cards.js';
export { kitchenAnswerFormat, finalizeKitchenAnswer, NUTRITION_UNAVAILABLE } from './kitchen-answer.js';
export { kitchenDemoModel, type KitchenDemoModelOptions } from './demo/kitchen-demo-model.js';
export { KITCHEN_DEMO_NOTICE } from './demo/write-answer.js';
export { gramsOf } from './grams-per-unit.js';
export { deriveDishNutrition, type DishNutrition, type DishIngredient } from './dish-nutrition.js';
