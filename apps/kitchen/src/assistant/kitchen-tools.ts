import { defineTool, type AnyTool } from 'reins';
import { z } from 'zod';
import { LOCATIONS } from '../domain/types.js';
import type { KitchenReads } from '../services/assistant-reads.js';
import { dateInput, fridgeOutput, mealPlanOutput, preferencesOutput, recipeSearchOutput } from './schemas.js';
import { viaService } from './tool-errors.js';

/** Drops keys whose value is undefined: the service's strict schemas see only what was given. */
const defined = <T extends Record<string, unknown>>(input: T): Partial<T> =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;

/*
 * The four household reads. None of them takes a household (or user) id: the household is the
 * run's trusted `ctx.principal` (its `householdId` claim), turned into a `KitchenPrincipal` by
 * `kitchenReads`, whose services check the membership on every call. The inputs are strict, so
 * a model-written `household_id` / `space_id` is refused before `run` is called.
 */
export function kitchenTools(reads: KitchenReads): AnyTool[] {
  const fridgeItems = defineTool({
    name: 'fridge_items',
    version: '1',
    lastUpdated: '2026-12-02',
    description:
      "The household's fridge, freezer and pantry items, soonest expiry first, with daysLeft (negative: expired): " +
      'the first `limit` (default 20) and `total`, how many there are in all. expiringWithinDays keeps items due ' +
      'within N days (expired ones included). 冰箱/冷冻/储物柜里的食材（最早到期的在前，total 为总数）。',
    input: z.object({
      expiringWithinDays: z.number().int().min(0).max(365).optional(),
      location: z.enum(LOCATIONS).optional(),
      limit: z.number().int().min(1).max(100).optional(),
    }),
    output: fridgeOutput,
    readOnly: true,
    run: (input, ctx) => viaService(() => reads.fridgeItems(ctx.principal, defined(input))),
  });

  const searchRecipes = defineTool({
    name: 'search_recipes',
    version: '1',
    lastUpdated: '2026-12-02',
    description:
      "The household's own recipes checked against everything at home (the whole fridge, freezer and pantry, " +
      'read by the service: no need to list it): each match lists matched (at home) and missing ingredients, ' +
      'fewest missing first. ingredients (optional, e.g. 番茄) keeps recipes using them. ' +
      '用家里现有的全部食材匹配家里的菜谱；可选 ingredients 只看用到这些食材的菜。',
    input: z.object({
      ingredients: z.array(z.string().trim().min(1).max(40)).min(1).max(20).optional(),
      limit: z.number().int().min(1).max(20).optional(),
    }),
    output: recipeSearchOutput,
    readOnly: true,
    run: (input, ctx) => viaService(() => reads.searchRecipes(ctx.principal, defined(input))),
  });

  const mealPlan = defineTool({
    name: 'meal_plan',
    version: '1',
    lastUpdated: '2026-12-02',
    description:
      "The household's meal plan (breakfast/lunch/dinner) from `from` to `to` inclusive, dates YYYY-MM-DD, " +
      'at most 62 days. 某段日期的菜单安排。',
    input: z.object({ from: dateInput, to: dateInput }),
    output: mealPlanOutput,
    readOnly: true,
    run: async (input, ctx) => ({
      from: input.from,
      to: input.to,
      entries: await viaService(() => reads.mealPlan(ctx.principal, input)),
    }),
  });

  const householdPreferences = defineTool({
    name: 'household_preferences',
    version: '1',
    lastUpdated: '2026-12-02',
    description:
      "The household's allergies and dietary preferences (who, and why). Check before suggesting a dish. " +
      '家庭过敏与饮食偏好。',
    input: z.object({}),
    output: preferencesOutput,
    readOnly: true,
    run: (_input, ctx) => viaService(() => reads.householdProfile(ctx.principal)),
  });

  return [fridgeItems, searchRecipes, mealPlan, householdPreferences];
}
