import { api, draftKey, etag } from '../api.js';
import { removeButton } from './confirm.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import type { MealPlanEntry, Recipe, Slot } from '../types.js';
import { addDays, errorLine, field, today } from './common.js';

const SLOTS: readonly Slot[] = ['breakfast', 'lunch', 'dinner'];

export function mealPlanPage(): HTMLElement {
  let week = today();
  const grid = h('div', { class: 'week', 'data-testid': 'meal-plan' });
  const heading = h('p', { class: 'muted', 'aria-live': 'polite' });
  const error = errorLine();
  const drafts = draftKey();
  const recipeSelect = h('select', { name: 'recipeId', required: true });
  const date = h('input', { name: 'date', type: 'date', value: week, required: true });
  const slot = h(
    'select',
    { name: 'slot' },
    SLOTS.map((s) => h('option', { value: s }, t()[s])),
  );

  const load = async () => {
    const [plan, recipes] = await Promise.all([
      api<{ from: string; to: string; entries: MealPlanEntry[] }>('GET', `/api/meal-plans?week=${week}`),
      api<{ recipes: Recipe[] }>('GET', '/api/recipes'),
    ]);
    if (!plan.ok) return error.show(plan.error);
    if (recipes.ok)
      replace(
        recipeSelect,
        recipes.data.recipes.map((r) => h('option', { value: r.id }, r.name)),
      );
    error.show(null);
    replace(heading, `${t().week} ${plan.data.from} – ${plan.data.to}`);
    const days = Array.from({ length: 7 }, (_, i) => addDays(plan.data.from, i));
    replace(
      grid,
      days.map((day, i) =>
        h(
          'div',
          { class: 'day', 'data-testid': 'plan-day' },
          // The week starts on Monday (the server's `from`), so index i is the weekday: 周一 / Mon.
          h('h3', {}, h('span', { class: 'weekday' }, t().weekday(weekdayIndex(day, i))), ` ${day}`),
          h(
            'ul',
            {},
            plan.data.entries
              .filter((e) => e.date === day)
              .sort((a, b) => SLOTS.indexOf(a.slot) - SLOTS.indexOf(b.slot))
              .map((e) =>
                h(
                  'li',
                  {},
                  h('span', { class: 'muted' }, `${t()[e.slot]} `),
                  e.recipeName,
                  ' ',
                  removeButton(
                    `${e.recipeName} ${day}`,
                    async () => {
                      const reply = await api(
                        'DELETE',
                        `/api/meal-plans/${encodeURIComponent(e.id)}`,
                        undefined,
                        { ifMatch: etag(e) },
                      );
                      if (!reply.ok) return error.show(reply.error);
                      await load();
                    },
                    '×',
                  ),
                ),
              ),
          ),
        ),
      ),
    );
  };

  const form = h(
    'form',
    {
      class: 'inline-form',
      'aria-label': `${t().add} — ${t().mealPlan}`,
      onsubmit: async (event) => {
        event.preventDefault();
        const body = { date: date.value, slot: slot.value, recipeId: recipeSelect.value };
        const reply = await api('POST', '/api/meal-plans', body, { idempotencyKey: drafts.key(body) });
        if (!reply.ok) return error.show(reply.error);
        drafts.done();
        await load();
      },
    },
    field('plan-date', t().date, date),
    field('plan-slot', t().slot, slot),
    field('plan-recipe', t().recipe, recipeSelect),
    h('button', { type: 'submit' }, t().add),
  );
  const nav = h(
    'div',
    { class: 'row' },
    h(
      'button',
      { type: 'button', class: 'secondary', onclick: () => ((week = addDays(week, -7)), void load()) },
      `← ${t().prevWeek}`,
    ),
    h(
      'button',
      { type: 'button', class: 'secondary', onclick: () => ((week = addDays(week, 7)), void load()) },
      `${t().nextWeek} →`,
    ),
  );
  void load();
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'plan-title' },
    h('h2', { id: 'plan-title' }, t().mealPlan),
    heading,
    nav,
    error.el,
    grid,
    form,
  );
}

/** Monday = 0 … Sunday = 6, from the date itself (falls back to the position in the week). */
function weekdayIndex(date: string, position: number): number {
  const d = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? position : (d.getUTCDay() + 6) % 7;
}
