import type { DemoIntent } from './intent.js';
import type { Seen } from './seen.js';
import { weekOf } from './dates.js';

export interface DemoCall {
  readonly action: string;
  readonly input: Record<string, unknown>;
}

/** Up to 8 names of usable (not expired) fridge items, soonest expiry first. */
export function usableNames(seen: Seen): string[] {
  const items = seen.fridge() ?? [];
  return [...new Set(items.filter((i) => i.daysLeft === null || i.daysLeft >= 0).map((i) => i.name))].slice(0, 8);
}

/** Recipes that use none of the household's allergens. */
export function safeMatches(seen: Seen) {
  const allergens = (seen.profile()?.allergies ?? []).map((a) => a.label);
  return (seen.recipes() ?? []).filter(
    (m) => !m.recipe.ingredients.some((i) => allergens.some((a) => i.name.includes(a))),
  );
}

/**
 * The next tool calls for an intent, from what has been observed: each intent is a few rounds,
 * later rounds built from earlier results. An empty list means: answer now.
 */
export function nextCalls(intent: DemoIntent, seen: Seen, today: string, food: string | undefined): DemoCall[] {
  const pending = (calls: DemoCall[]) => calls.filter((c) => !seen.tools.has(c.action));
  const searchFor = (names: string[]): DemoCall[] =>
    names.length === 0 ? [] : pending([{ action: 'search_recipes', input: { ingredients: names, limit: 3 } }]);
  switch (intent) {
    case 'help':
      return [];
    case 'allergies':
      return pending([{ action: 'household_preferences', input: {} }]);
    case 'nutrition':
      return food === undefined ? [] : pending([{ action: 'nutrition_lookup', input: { food } }]);
    case 'expiring': {
      const first = pending([
        { action: 'fridge_items', input: { expiringWithinDays: 3 } },
        { action: 'household_preferences', input: {} },
      ]);
      return first.length > 0 ? first : searchFor(usableNames(seen));
    }
    case 'cook': {
      const first = pending([
        { action: 'fridge_items', input: {} },
        { action: 'household_preferences', input: {} },
      ]);
      if (first.length > 0) return first;
      const search = searchFor(usableNames(seen));
      if (search.length > 0 || !seen.tools.has('search_recipes')) return search;
      const top = safeMatches(seen)[0]?.recipe.name;
      return top === undefined ? [] : pending([{ action: 'nutrition_lookup', input: { food: top } }]);
    }
    case 'plan': {
      const { monday, sunday } = weekOf(today);
      const first = pending([
        { action: 'meal_plan', input: { from: monday, to: sunday } },
        { action: 'fridge_items', input: { expiringWithinDays: 5 } },
        { action: 'household_preferences', input: {} },
      ]);
      return first.length > 0 ? first : searchFor(usableNames(seen));
    }
  }
}
