import type { ToolContext } from 'reins';
import { broaderName } from '../domain/ingredient-names.js';
import type { Recipe } from '../domain/types.js';
import { gramsOf } from './grams-per-unit.js';
import type { NutritionEntry, NutritionLookup } from './nutrition-tool.js';

export interface Nutrients {
  readonly energyKcal: number | null;
  readonly proteinG: number | null;
  readonly fatG: number | null;
  readonly carbohydrateG: number | null;
}

export interface DishIngredient {
  readonly name: string;
  readonly grams: number | null;
  /** `counted`: in the sum; `no_weight`: no grams rule for its unit; `no_entry`: not in the table. */
  readonly status: 'counted' | 'no_weight' | 'no_entry';
  /** The table entry used (looked up as the ingredient, or as its broader meat: 五花肉 → 猪肉). */
  readonly matched: string | null;
  /**
   * A counted ingredient's nutrients the table gives no value for (the oils' energy: IFCT has
   * 0 kJ next to 100 g fat), so they are not in those sums; absent when it gives them all.
   */
  readonly notGiven?: readonly NutrientKey[];
}

export type NutrientKey = keyof Nutrients;

export interface DishNutrition {
  readonly recipeId: string;
  readonly recipeName: string;
  readonly servings: number;
  readonly perServing: Nutrients;
  readonly total: Nutrients;
  readonly ingredients: readonly DishIngredient[];
}

const KEYS = ['energyKcal', 'proteinG', 'fatG', 'carbohydrateG'] as const satisfies readonly NutrientKey[];
const round1 = (n: number): number => Math.round(n * 10) / 10;

/**
 * `mcp_derived` nutrition of a household recipe: each ingredient's grams (our unit rules, see
 * `gramsOf`) × its table values per 100 g, summed, divided by the servings. Ingredients
 * without a weight rule or a table entry are left out and listed; none counted → null; a value
 * the table does not give for a counted one is left out of that sum and listed (`notGiven`). A
 * lookup that fails (service down) throws: no partial sum is passed off as the dish's.
 */
export async function deriveDishNutrition(
  recipe: Recipe,
  lookup: NutritionLookup,
  ctx: ToolContext,
): Promise<DishNutrition | null> {
  const ingredients = await Promise.all(
    recipe.ingredients.map(async (ingredient) => {
      const grams = gramsOf(ingredient.name, ingredient.quantity, ingredient.unit);
      if (grams === null) {
        return { row: { name: ingredient.name, grams, status: 'no_weight', matched: null } as const };
      }
      const entry = await lookupWithBroader(ingredient.name, lookup, ctx);
      if (entry === null) {
        return { row: { name: ingredient.name, grams, status: 'no_entry', matched: null } as const };
      }
      const notGiven = KEYS.filter((key) => typeof entry.per100g[key] !== 'number');
      const row: DishIngredient = { name: ingredient.name, grams, status: 'counted', matched: entry.name };
      return { row: notGiven.length === 0 ? row : { ...row, notGiven }, entry, grams };
    }),
  );
  const counted = ingredients.filter((i) => i.entry !== undefined);
  if (counted.length === 0) return null;
  const total = Object.fromEntries(
    KEYS.map((key) => {
      const known = counted.filter((i) => typeof i.entry?.per100g[key] === 'number');
      if (known.length === 0) return [key, null];
      const sum = known.reduce((n, i) => n + ((i.entry?.per100g[key] ?? 0) * (i.grams ?? 0)) / 100, 0);
      return [key, sum];
    }),
  ) as Record<NutrientKey, number | null>;
  const servings = recipe.servings > 0 ? recipe.servings : 1;
  const per = (value: number | null) => (value === null ? null : round1(value / servings));
  const whole = (value: number | null) => (value === null ? null : round1(value));
  return {
    recipeId: recipe.id,
    recipeName: recipe.name,
    servings,
    perServing: {
      energyKcal: per(total.energyKcal),
      proteinG: per(total.proteinG),
      fatG: per(total.fatG),
      carbohydrateG: per(total.carbohydrateG),
    },
    total: {
      energyKcal: whole(total.energyKcal),
      proteinG: whole(total.proteinG),
      fatG: whole(total.fatG),
      carbohydrateG: whole(total.carbohydrateG),
    },
    ingredients: ingredients.map((i) => i.row),
  };
}

async function lookupWithBroader(
  name: string,
  lookup: NutritionLookup,
  ctx: ToolContext,
): Promise<NutritionEntry | null> {
  const entry = await lookup(name, ctx);
  if (entry !== null) return entry;
  const broad = broaderName(name);
  return broad === undefined ? null : lookup(broad, ctx);
}
