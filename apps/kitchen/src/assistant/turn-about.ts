import type { JsonValue, RunRecord } from 'reins';
import { kitchenAnswer } from './cards.js';

/**
 * What a finished turn of the assistant was about (seed 001 §2.3 task state), from the checked
 * answer's cards — the recipes, the food or dish, the meal plan — for the conversation's next
 * turns ("它的热量呢？" is about the recipe just suggested). Code reads the stamped cards, not the
 * model's prose; a turn without cards is about nothing in particular.
 */
export function kitchenTurnAbout(record: RunRecord): { readonly [key: string]: JsonValue } | undefined {
  const parsed = kitchenAnswer.safeParse(record.answer_data);
  if (!parsed.success) return undefined;
  const about: Record<string, JsonValue> = {};
  for (const card of parsed.data.cards) {
    if (card.type === 'recipe' && about['recipe'] === undefined)
      about['recipe'] = { name: card.name, ...(card.recipeId === undefined ? {} : { id: card.recipeId }) };
    else if (card.type === 'nutrition' && about['food'] === undefined) about['food'] = card.food;
    else if (card.type === 'meal_plan' && about['plan'] === undefined) about['plan'] = card.title;
  }
  return Object.keys(about).length === 0 ? undefined : about;
}
