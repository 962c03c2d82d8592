import type { DemoPart } from './intent.js';
import type { Seen } from './seen.js';
import { weekOf } from './dates.js';
import { avoidedTags } from './memory-calls.js';
import { pageFor } from './change-request.js';

export interface DemoCall {
  readonly action: string;
  readonly input: Record<string, unknown>;
  /** Nice to have: a run at its step limit answers without it. */
  readonly optional?: boolean;
}

/** Days ahead that count as "expiring soon". */
export const SOON_DAYS = 3;

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

/** How many recipes a search asks for: enough for three cards and a week of dinners. */
const SEARCH_LIMIT = 5;

/**
 * The next tool calls for one part of a question, from what has been observed. The recipe
 * search reads the whole fridge and pantry itself, so every read is in the first round; a
 * cook question then looks up the top dish's nutrition (`optional`: the answer stands
 * without it). An empty list means: answer now.
 */
export function nextCalls(part: DemoPart, seen: Seen, today: string): DemoCall[] {
  const pending = (calls: DemoCall[]) => calls.filter((c) => !seen.tools.has(c.action));
  const reads = (...more: DemoCall[]): DemoCall[] =>
    pending([
      ...more,
      { action: 'fridge_items', input: {} },
      { action: 'household_preferences', input: {} },
      { action: 'search_recipes', input: { limit: SEARCH_LIMIT } },
    ]);
  switch (part.intent) {
    case 'help':
      return [];
    case 'change': {
      // Nothing is changed; the page's data is read so the answer can say what is there now
      // (and a plan-and-execute agent, whose plan needs a step, does the same as the ReAct one).
      const page = pageFor(part.text);
      if (page === 'fridge') return pending([{ action: 'fridge_items', input: {} }]);
      if (page === 'preferences') return pending([{ action: 'household_preferences', input: {} }]);
      if (page === 'recipes') return pending([{ action: 'search_recipes', input: { limit: SEARCH_LIMIT } }]);
      const { monday, sunday } = weekOf(today);
      return pending([{ action: 'meal_plan', input: { from: monday, to: sunday } }]);
    }
    case 'allergies':
      return pending([{ action: 'household_preferences', input: {} }]);
    case 'nutrition': {
      const food = part.food;
      if (food === undefined || seen.nutritionFor(food) !== undefined) return [];
      return seen.failed('nutrition_lookup') === undefined
        ? [{ action: 'nutrition_lookup', input: { food } }]
        : [];
    }
    case 'expiring':
      return reads();
    case 'cook': {
      const first = reads();
      if (first.length > 0) return first;
      const top = safeMatches(seen)[0]?.recipe.name;
      if (top === undefined || seen.nutritionFor(top) !== undefined) return [];
      if (seen.failed('nutrition_lookup') !== undefined) return [];
      return [{ action: 'nutrition_lookup', input: { food: top }, optional: true }];
    }
    case 'plan': {
      const { monday, sunday } = weekOf(today);
      return reads({ action: 'meal_plan', input: { from: monday, to: sunday } });
    }
  }
}
