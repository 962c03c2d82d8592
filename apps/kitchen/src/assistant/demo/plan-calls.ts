import type { DemoIntent } from './intent.js';
import type { Seen } from './seen.js';
import { weekOf } from './dates.js';
import { avoidedTags } from './memory-calls.js';

export interface DemoCall {
  readonly action: string;
  readonly input: Record<string, unknown>;
}

/** Days ahead that count as "expiring soon". */
export const SOON_DAYS = 3;

/** Up to `max` names of usable (not expired) fridge items, soonest expiry first. */
export function usableNames(seen: Seen, max = 8): string[] {
  const items = seen.fridge() ?? [];
  return [...new Set(items.filter((i) => i.daysLeft === null || i.daysLeft >= 0).map((i) => i.name))].slice(
    0,
    max,
  );
}

/** Names of items due within `SOON_DAYS` (not yet expired). */
export function soonNames(seen: Seen): string[] {
  return (seen.fridge() ?? [])
    .filter((i) => i.daysLeft !== null && i.daysLeft >= 0 && i.daysLeft <= SOON_DAYS)
    .map((i) => i.name);
}

/**
 * Recipes that use none of the household's allergens (and, with `avoidRemembered`, no tag its
 * recalled memories rule out, e.g. 辣); with `preferSoon`, those using more of
 * the items due soon first (a stable sort keeps the service's ranking otherwise).
 */
export function safeMatches(seen: Seen, preferSoon = false, avoidRemembered = true) {
  const allergens = (seen.profile()?.allergies ?? []).map((a) => a.label);
  const avoided = avoidRemembered ? avoidedTags(seen) : []; // from recalled memories (婆婆不吃辣)
  const safe = (seen.recipes() ?? []).filter(
    (m) =>
      !m.recipe.ingredients.some((i) => allergens.some((a) => i.name.includes(a))) &&
      !m.recipe.tags.some((tag) => avoided.includes(tag)),
  );
  if (!preferSoon) return safe;
  const soon = soonNames(seen);
  const score = (m: (typeof safe)[number]) =>
    m.matched.filter((n) => soon.some((s) => s.includes(n) || n.includes(s))).length;
  return [...safe].sort((a, b) => score(b) - score(a));
}

/**
 * The next tool calls for an intent, from what has been observed: each intent is a few rounds,
 * later rounds built from earlier results. An empty list means: answer now.
 */
export function nextCalls(
  intent: DemoIntent,
  seen: Seen,
  today: string,
  food: string | undefined,
): DemoCall[] {
  const pending = (calls: DemoCall[]) => calls.filter((c) => !seen.tools.has(c.action));
  const searchFor = (names: string[]): DemoCall[] =>
    names.length === 0
      ? []
      : pending([{ action: 'search_recipes', input: { ingredients: names, limit: 5 } }]);
  switch (intent) {
    case 'help':
      return [];
    case 'allergies':
      return pending([{ action: 'household_preferences', input: {} }]);
    case 'nutrition':
      return food === undefined ? [] : pending([{ action: 'nutrition_lookup', input: { food } }]);
    case 'expiring': {
      // The whole fridge: "missing" must not list what is at home but not due soon.
      const first = pending([
        { action: 'fridge_items', input: {} },
        { action: 'household_preferences', input: {} },
      ]);
      return first.length > 0 || soonNames(seen).length === 0 ? first : searchFor(usableNames(seen, 20));
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
        { action: 'fridge_items', input: {} },
        { action: 'household_preferences', input: {} },
      ]);
      return first.length > 0 ? first : searchFor(usableNames(seen, 20));
    }
  }
}
