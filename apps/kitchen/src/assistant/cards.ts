import { z } from 'zod';
import { SLOTS } from '../domain/types.js';

/**
 * The assistant's final answer: a reply and action cards, the shape the web UI renders. The
 * model writes it; `finalizeKitchenAnswer` then re-stamps by code what the model cannot vouch
 * for (nutrition values and their provenance, recipe ids and where a recipe came from).
 */

/** Where a nutrition value came from, stamped by the code path that produced it. */
export const PROVENANCES = ['mcp_exact', 'mcp_derived', 'llm_estimate'] as const;
export type Provenance = (typeof PROVENANCES)[number];

const amount = z.number().finite().min(0).max(100_000).nullable().optional();
export const nutrientValues = z.object({
  energyKcal: amount,
  proteinG: amount,
  fatG: amount,
  carbohydrateG: amount,
});
export type NutrientValues = z.infer<typeof nutrientValues>;

export const recipeCard = z.object({
  type: z.literal('recipe'),
  name: z.string().min(1).max(100),
  /** Stamped: the household recipe's id when a tool returned it this run, else absent. */
  recipeId: z.string().max(64).optional(),
  /** Stamped: `household` when a tool returned this recipe this run, else `suggestion`. */
  origin: z.enum(['household', 'suggestion']).optional(),
  reason: z.string().max(400).optional(),
  uses: z.array(z.string().max(40)).max(30).optional(),
  missing: z.array(z.string().max(40)).max(30).optional(),
  tags: z.array(z.string().max(40)).max(20).optional(),
});

export const nutritionCard = z.object({
  type: z.literal('nutrition'),
  /** The food or dish as asked. */
  food: z.string().min(1).max(60),
  /** `per_100g` for a food from the table, `per_serving` for a dish computed from its recipe. */
  basis: z.enum(['per_100g', 'per_serving']).optional(),
  values: nutrientValues.optional(),
  /** Stamped by code; whatever the model writes here is replaced. */
  provenance: z.enum(PROVENANCES).optional(),
  source: z.string().max(200).optional(),
  note: z.string().max(400).optional(),
});

export const mealPlanEntryCard = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  slot: z.enum(SLOTS),
  recipeName: z.string().min(1).max(100),
  recipeId: z.string().max(64).optional(),
  /** `planned`: already on the household's plan; `suggested`: the assistant's idea for an empty slot. */
  status: z.enum(['planned', 'suggested']),
});

export const mealPlanCard = z.object({
  type: z.literal('meal_plan'),
  title: z.string().min(1).max(100),
  entries: z.array(mealPlanEntryCard).max(62),
  note: z.string().max(400).optional(),
});

export const kitchenCard = z.discriminatedUnion('type', [recipeCard, nutritionCard, mealPlanCard]);

/** A household memory the answer drew on (stamped by code from the run's recall). */
export const usedMemory = z.object({ id: z.string().max(64), text: z.string().max(500) });

export const kitchenAnswer = z.object({
  reply: z.string().min(1).max(4_000),
  cards: z.array(kitchenCard).max(12),
  /** Stamped: the household memories `recall_memories` returned this run; absent when none. */
  memories: z.array(usedMemory).max(10).optional(),
});

export type RecipeCard = z.infer<typeof recipeCard>;
export type NutritionCard = z.infer<typeof nutritionCard>;
export type MealPlanEntryCard = z.infer<typeof mealPlanEntryCard>;
export type MealPlanCard = z.infer<typeof mealPlanCard>;
export type KitchenCard = z.infer<typeof kitchenCard>;
export type KitchenAnswer = z.infer<typeof kitchenAnswer>;
export type UsedMemory = z.infer<typeof usedMemory>;
