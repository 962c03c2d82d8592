import type { KitchenAnswer, MealPlanCard } from '../cards.js';
import { SLOTS, type Slot } from '../../domain/types.js';
import { allergyLine, list, unavailable, type Context } from './answer-context.js';
import { addDays, weekOf, weekdayName } from './dates.js';
import { safeMatches } from './plan-calls.js';

const SLOT_NAMES: Readonly<Record<Slot, readonly [zh: string, en: string]>> = {
  breakfast: ['早饭', 'breakfast'],
  lunch: ['午饭', 'lunch'],
  dinner: ['晚饭', 'dinner'],
};

/**
 * This week's plan. A question about one meal (这周晚饭…) counts and lists that meal only — a
 * lunch is never counted as a dinner — and every entry says which meal it is. Open slots of
 * that meal (dinner by default) get suggestions from the household's recipes, due-soon first.
 */
export function plan(c: Context): KitchenAnswer {
  const planned = c.seen.plan();
  if (planned === undefined) return unavailable(c, 'meal_plan');
  const { monday } = weekOf(c.today);
  const slot = c.slot ?? 'dinner';
  const shown = planned.entries.filter((e) => c.slot === undefined || e.slot === c.slot);
  const entries: MealPlanCard['entries'][number][] = shown.map((e) => ({
    date: e.date,
    slot: e.slot,
    recipeName: e.recipeName,
    status: 'planned',
  }));
  const ideas = safeMatches(c.seen, true).map((m) => m.recipe.name);
  const open: string[] = [];
  for (let d = 0; d < 7; d++) {
    const date = addDays(monday, d);
    if (date >= c.today && !planned.entries.some((e) => e.date === date && e.slot === slot)) open.push(date);
  }
  open
    .slice(0, ideas.length)
    .forEach((date, i) => entries.push({ date, slot, recipeName: ideas[i] ?? '', status: 'suggested' }));
  entries.sort((a, b) => a.date.localeCompare(b.date) || SLOTS.indexOf(a.slot) - SLOTS.indexOf(b.slot));
  const day = (date: string) => `${weekdayName(date, c.zh)} ${date.slice(5)}`;
  const meal = (s: Slot) => c.say(SLOT_NAMES[s][0], SLOT_NAMES[s][1]);
  const show = (e: { date: string; slot: Slot; recipeName: string }) =>
    `${day(e.date)} ${meal(e.slot)} ${e.recipeName}`;
  // A meal is a date and a slot; two dishes on one dinner are one dinner, not two.
  const meals = new Map<string, { date: string; slot: Slot; dishes: string[] }>();
  for (const e of shown) {
    const key = `${e.date}|${e.slot}`;
    const m = meals.get(key) ?? { date: e.date, slot: e.slot, dishes: [] };
    m.dishes.push(e.recipeName);
    meals.set(key, m);
  }
  const showMeal = (m: { date: string; slot: Slot; dishes: string[] }) =>
    `${day(m.date)} ${meal(m.slot)} ${list(c.zh, m.dishes)}`;
  const count = meals.size;
  const what =
    c.slot === undefined ? c.say('顿饭', 'meal(s)') : c.say(`顿${meal(c.slot)}`, `${meal(c.slot)}(s)`);
  const lines = [
    shown.length === 0
      ? c.say(
          `这周还没有安排${c.slot === undefined ? '菜单' : meal(c.slot)}。`,
          `No ${c.slot === undefined ? 'meals are' : `${meal(c.slot)} is`} planned this week yet.`,
        )
      : c.say(
          `这周已安排 ${count} ${what}（${shown.length} 道菜）：${[...meals.values()].map(showMeal).join('；')}。`,
          `${count} ${what} planned this week (${shown.length} dish(es)): ${[...meals.values()].map(showMeal).join('; ')}.`,
        ),
  ];
  const suggested = entries.filter((e) => e.status === 'suggested');
  if (suggested.length > 0)
    lines.push(
      c.say(
        `空着的${meal(slot)}可以安排（先用快过期的食材）：${list(true, suggested.map(show))}（建议，未写入计划）。`,
        `Open ${meal(slot)}s could be (using what is due soon first): ${list(false, suggested.map(show))} (suggestions, not saved).`,
      ),
    );
  const allergy = allergyLine(c);
  if (allergy !== undefined) lines.push(allergy);
  const card: MealPlanCard = { type: 'meal_plan', title: c.say('本周菜单', 'This week'), entries };
  return { reply: lines.join('\n'), cards: [card] };
}
