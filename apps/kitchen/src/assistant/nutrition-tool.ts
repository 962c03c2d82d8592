import { defineTool, ToolError, type Principal, type ToolContext } from 'reins';
import { z } from 'zod';
import { chineseFoodName } from '../domain/food-names.js';
import type { Recipe } from '../domain/types.js';
import { deriveDishNutrition, type DishNutrition } from './dish-nutrition.js';
import { viaService } from './tool-errors.js';

/** Nutrients per 100 g as the nutrition server gives them (`get_food`'s `per100g`). */
export interface NutritionPer100g {
  readonly energyKcal: number | null;
  readonly proteinG: number | null;
  readonly fatG: number | null;
  readonly carbohydrateG: number | null;
  readonly fibreG?: number | null;
  readonly sodiumMg?: number | null;
}

/** One matched entry of the composition table. Extra fields (a `provenance` among them) are ignored. */
export interface NutritionEntry {
  readonly code: string;
  readonly name: string;
  readonly matchedAlias?: string | null;
  readonly note?: string;
  readonly source: string;
  readonly per100g: NutritionPer100g;
}

/**
 * Looks a food up in the nutrition data service: the entry, or `null` when the table has no
 * such food. Throws when the service cannot answer (down, timed out). Gets the calling tool's
 * context (its `signal` must be honoured). The real one is the nutrition MCP server's
 * `get_food` through `@reins/mcp` (`mcpNutritionLookup`); tests pass a fake.
 */
export type NutritionLookup = (food: string, ctx: ToolContext) => Promise<NutritionEntry | null>;

const num = z.number().nullable();
const entrySchema = z.object({
  code: z.string(),
  name: z.string(),
  matchedAlias: z.string().nullable(),
  note: z.string().nullable(),
  source: z.string(),
  basis: z.literal('per 100 g edible portion'),
  per100g: z.object({
    energyKcal: num,
    proteinG: num,
    fatG: num,
    carbohydrateG: num,
    fibreG: num,
    sodiumMg: num,
  }),
});

const nutrients = z.object({ energyKcal: num, proteinG: num, fatG: num, carbohydrateG: num });
const dishSchema = z.object({
  recipeId: z.string(),
  recipeName: z.string(),
  servings: z.number(),
  basis: z.literal('per serving, computed from the recipe ingredients'),
  perServing: nutrients,
  total: nutrients,
  ingredients: z
    .array(
      z.object({
        name: z.string(),
        grams: z.number().nullable(),
        status: z.enum(['counted', 'no_weight', 'no_entry']),
        matched: z.string().nullable(),
        notGiven: z
          .array(z.enum(['energyKcal', 'proteinG', 'fatG', 'carbohydrateG']))
          .readonly()
          .optional(),
      }),
    )
    .readonly(),
});

export const nutritionOutput = z.union([
  z.object({
    food: z.string(),
    found: z.literal(true),
    provenance: z.literal('mcp_exact'),
    entry: entrySchema,
  }),
  z.object({
    food: z.string(),
    found: z.literal(true),
    provenance: z.literal('mcp_derived'),
    dish: dishSchema,
  }),
  z.object({
    food: z.string(),
    found: z.literal(false),
    provenance: z.null(),
    note: z.string(),
  }),
]);

/**
 * A household recipe by its exact name (the caller's household, from the trusted principal),
 * or null: dishes get `mcp_derived` nutrition from their ingredients.
 */
export type DishSource = (principal: Principal, name: string) => Promise<Recipe | null>;

export interface NutritionToolOptions {
  /** Household recipes, for the nutrition of a dish (`mcp_derived`). Absent: foods only. */
  readonly dishes?: DishSource;
  /** The whole lookup (a dish: all its ingredients). Default 8 000 ms. */
  readonly timeoutMs?: number;
  /** The breaker's half-open probe (is the nutrition server up?); absent: the next call probes. */
  readonly probe?: () => Promise<boolean>;
}

const orNull = (value: number | null | undefined): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/**
 * `nutrition_lookup`: per-100 g values of one food. `provenance: "mcp_exact"` is stamped here,
 * by this code path, on values that came from the lookup — the model cannot set it (the input
 * is `{food}` only) and whatever the lookup says about provenance is not copied.
 */
export function nutritionTool(lookup: NutritionLookup, options: NutritionToolOptions = {}) {
  return defineTool({
    name: 'nutrition_lookup',
    version: '2', // 2: a dish ingredient's notGiven nutrients
    lastUpdated: '2026-12-04',
    description:
      'Nutrition per 100 g edible portion of one food or ingredient (Chinese or English name, e.g. 鸡蛋, pork) ' +
      "from the IFCT 2017 table; for one of the household's dishes (e.g. 番茄炒蛋), per serving computed from " +
      'its ingredients (provenance mcp_derived). found:false means no data: say so, do not invent numbers. ' +
      '查询食材或家里菜品的营养成分。',
    input: z.object({ food: z.string().trim().min(1).max(60) }),
    output: nutritionOutput,
    readOnly: true,
    timeoutMs: options.timeoutMs ?? 8_000,
    ...(options.probe === undefined ? {} : { policy: { breaker: { probe: options.probe } } }),
    run: async ({ food }, ctx) => {
      let entry: NutritionEntry | null;
      let dish: DishNutrition | null = null;
      try {
        const dishes = options.dishes;
        const recipe = dishes === undefined ? null : await viaService(() => dishes(ctx.principal, food));
        if (recipe !== null) dish = await deriveDishNutrition(recipe, lookup, ctx);
        // English names go by their Chinese name first (pork → 猪肉), the name as written after.
        const chinese = chineseFoodName(food);
        entry =
          recipe !== null
            ? null
            : chinese === undefined
              ? await lookup(food, ctx)
              : await lookup(chinese, ctx);
        if (recipe === null && entry === null && chinese !== undefined) entry = await lookup(food, ctx);
      } catch (thrown) {
        if (thrown instanceof ToolError) throw thrown;
        throw new ToolError('SERVICE_UNAVAILABLE', 'the nutrition data service is unavailable');
      }
      if (dish !== null) {
        return {
          food,
          found: true as const,
          provenance: 'mcp_derived' as const,
          dish: { ...dish, basis: 'per serving, computed from the recipe ingredients' as const },
        };
      }
      if (entry === null) {
        return {
          food,
          found: false as const,
          provenance: null,
          note: 'no entry in the nutrition table for this food',
        };
      }
      const p = entry.per100g;
      return {
        food,
        found: true as const,
        provenance: 'mcp_exact' as const,
        entry: {
          code: entry.code,
          name: entry.name,
          matchedAlias: entry.matchedAlias ?? null,
          note: entry.note ?? null,
          source: entry.source,
          basis: 'per 100 g edible portion' as const,
          per100g: {
            energyKcal: orNull(p.energyKcal),
            proteinG: orNull(p.proteinG),
            fatG: orNull(p.fatG),
            carbohydrateG: orNull(p.carbohydrateG),
            fibreG: orNull(p.fibreG),
            sodiumMg: orNull(p.sodiumMg),
          },
        },
      };
    },
  });
}
