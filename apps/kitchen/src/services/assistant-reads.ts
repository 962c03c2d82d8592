import type { Principal } from 'reins';
import { normalizeName } from '../domain/ingredient-names.js';
import type { DietaryProfile, FridgeItem, MealPlanEntry, Recipe } from '../domain/types.js';
import type { KitchenServices } from './kitchen-services.js';
import { fromReinsPrincipal } from './principal.js';
import type { HomeMatches } from './recipe-home-match.js';

/**
 * The read-only surface the assistant's tools (and the inward MCP server) will use: four reads,
 * no writes, and the household taken from the run's trusted `ctx.principal` — never from the
 * model-written input, whose strict schemas refuse a `householdId` as an unknown field.
 */
export interface KitchenReads {
  /** `{expiringWithinDays?, location?, limit?}`: soonest expiry first, at most `limit`, and the total. */
  fridgeItems(principal: Principal, input: unknown): Promise<{ items: FridgeItem[]; total: number }>;
  /** `{ingredients?, limit?}`: recipes against the whole fridge and pantry, fewest missing first. */
  searchRecipes(principal: Principal, input: unknown): Promise<HomeMatches>;
  /** `{from, to}` (`YYYY-MM-DD`, at most 62 days). */
  mealPlan(principal: Principal, input: unknown): Promise<MealPlanEntry[]>;
  householdProfile(principal: Principal): Promise<DietaryProfile>;
  /** The household's recipe of exactly this name (NFKC, case-insensitive), or null. */
  recipeNamed(principal: Principal, name: string): Promise<Recipe | null>;
}

export function kitchenReads(services: KitchenServices): KitchenReads {
  return {
    fridgeItems: (principal, input) => services.fridge.overview(fromReinsPrincipal(principal), input),
    searchRecipes: (principal, input) => services.recipes.matchAtHome(fromReinsPrincipal(principal), input),
    mealPlan: (principal, input) => services.mealPlans.list(fromReinsPrincipal(principal), input),
    householdProfile: (principal) => services.preferences.profile(fromReinsPrincipal(principal)),
    recipeNamed: async (principal, name) => {
      const wanted = normalizeName(name);
      if (wanted === '') return null;
      const found = await services.recipes.list(fromReinsPrincipal(principal), { q: wanted });
      return found.find((r) => normalizeName(r.name) === wanted) ?? null;
    },
  };
}
