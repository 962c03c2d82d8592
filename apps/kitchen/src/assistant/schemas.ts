import { z } from 'zod';
import { LOCATIONS, NOTE_KINDS, SLOTS } from '../domain/types.js';

/** Model-visible date: a short string, checked again (calendar date, range) by the service. */
export const dateInput = z
  .string()
  .max(10)
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date as YYYY-MM-DD');

// Output schemas: every observation is checked against these before the model sees it.

const fridgeItem = z.object({
  id: z.string(),
  name: z.string(),
  quantity: z.number(),
  unit: z.string(),
  location: z.enum(LOCATIONS),
  expiresOn: z.string().nullable(),
  daysLeft: z.number().int().nullable(),
});
/** `total`: how many items match in all; `items` is the first of them (soonest expiry first). */
export const fridgeOutput = z.object({ items: z.array(fridgeItem), total: z.number().int() });

const ingredient = z.object({
  name: z.string(),
  quantity: z.number().nullable(),
  unit: z.string().nullable(),
});
const recipe = z.object({
  id: z.string(),
  name: z.string(),
  servings: z.number(),
  ingredients: z.array(ingredient).readonly(),
  steps: z.array(z.string()).readonly(),
  tags: z.array(z.string()).readonly(),
});
/** `matched`: the recipe's ingredients at home; `missing`: the others; `itemsAtHome`: items compared. */
export const recipeSearchOutput = z.object({
  matches: z.array(
    z.object({ recipe, matched: z.array(z.string()).readonly(), missing: z.array(z.string()).readonly() }),
  ),
  itemsAtHome: z.number().int(),
});

const mealPlanEntry = z.object({
  id: z.string(),
  date: z.string(),
  slot: z.enum(SLOTS),
  recipeId: z.string(),
  recipeName: z.string(),
  servings: z.number().nullable(),
  note: z.string().nullable(),
});
export const mealPlanOutput = z.object({ from: z.string(), to: z.string(), entries: z.array(mealPlanEntry) });

const dietaryNote = z.object({
  id: z.string(),
  kind: z.enum(NOTE_KINDS),
  label: z.string(),
  person: z.string().nullable(),
  note: z.string().nullable(),
});
export const preferencesOutput = z.object({
  allergies: z.array(dietaryNote).readonly(),
  preferences: z.array(dietaryNote).readonly(),
});
