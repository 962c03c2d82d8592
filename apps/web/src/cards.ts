import { h, type Child } from './dom.js';
import { t } from './i18n.js';
import { arr, num, obj, str } from './run-events.js';

/**
 * Action cards from a structured answer's `data` (`{reply, cards: [{type: 'recipe' |
 * 'nutrition' | 'meal_plan', …}]}`). Read tolerantly — a field the card does not know is
 * shown as a plain row, a card of an unknown type generically — so a card never silently
 * vanishes. All values are text.
 */
export function renderCards(data: unknown): HTMLElement | null {
  const cards = arr(obj(data)?.['cards']);
  if (cards.length === 0) return null;
  return h(
    'div',
    { class: 'cards', 'data-testid': 'cards' },
    cards.map((card) => renderCard(obj(card) ?? { value: card })),
  );
}

function renderCard(card: Record<string, unknown>): HTMLElement {
  const type = str(card['type'], 'card');
  if (type === 'recipe') return recipeCard(card);
  if (type === 'nutrition') return nutritionCard(card);
  if (type === 'meal_plan') return mealPlanCard(card);
  return h(
    'article',
    { class: 'card', 'data-testid': `card-${type}` },
    h('h4', {}, type),
    rows(card, ['type']),
  );
}

function title(card: Record<string, unknown>, ...keys: string[]): string {
  for (const key of keys) {
    const value = card[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return '';
}

function recipeCard(card: Record<string, unknown>): HTMLElement {
  const ingredients = arr(card['ingredients']).map(ingredientText);
  const missing = arr(card['missing']).map(ingredientText);
  const steps = arr(card['steps']).map((s) => str(s, JSON.stringify(s)));
  return h(
    'article',
    { class: 'card card-recipe', 'data-testid': 'card-recipe' },
    h('p', { class: 'card-kind' }, t().recipe),
    h('h4', {}, title(card, 'name', 'title', 'recipeName')),
    ingredients.length > 0 && h('p', {}, `${t().ingredients}: ${ingredients.join('、')}`),
    missing.length > 0 && h('p', { class: 'missing' }, `${t().missing}: ${missing.join('、')}`),
    steps.length > 0 &&
      h(
        'ol',
        {},
        steps.map((s) => h('li', {}, s)),
      ),
    rows(card, ['type', 'name', 'title', 'recipeName', 'ingredients', 'missing', 'steps', 'id', 'recipeId']),
  );
}

function ingredientText(value: unknown): string {
  const o = obj(value);
  if (o === undefined) return str(value, JSON.stringify(value));
  const qty = num(o['quantity']);
  const unit = str(o['unit']);
  return [str(o['name']), qty === undefined ? '' : `${qty}${unit}`].filter((x) => x !== '').join(' ');
}

const NUTRIENTS: readonly [string, string][] = [
  ['energyKcal', 'kcal'],
  ['proteinG', 'protein g'],
  ['fatG', 'fat g'],
  ['carbohydrateG', 'carbohydrate g'],
  ['fibreG', 'fibre g'],
  ['sodiumMg', 'sodium mg'],
];

function nutritionCard(card: Record<string, unknown>): HTMLElement {
  const values = obj(card['per100g']) ?? obj(card['values']) ?? obj(card['nutrients']) ?? {};
  const provenance = str(card['provenance'], 'llm_estimate');
  const known = NUTRIENTS.filter(([key]) => num(values[key]) !== undefined);
  return h(
    'article',
    { class: 'card card-nutrition', 'data-testid': 'card-nutrition' },
    h('p', { class: 'card-kind' }, t().nutrition),
    h('h4', {}, title(card, 'food', 'name', 'dish')),
    h(
      'p',
      { class: `provenance provenance-${provenance.replace(/[^a-z_]/g, '')}`, 'data-testid': 'provenance' },
      t().provenance(provenance),
    ),
    known.length > 0 &&
      h(
        'table',
        {},
        h('caption', {}, t().per100g),
        h(
          'tbody',
          {},
          known.map(([key, label]) => h('tr', {}, h('th', {}, label), h('td', {}, String(num(values[key]))))),
        ),
      ),
    rows(card, ['type', 'food', 'name', 'dish', 'per100g', 'values', 'nutrients', 'provenance']),
  );
}

function mealPlanCard(card: Record<string, unknown>): HTMLElement {
  const entries = arr(card['entries'] ?? card['days'] ?? card['meals']);
  return h(
    'article',
    { class: 'card card-meal-plan', 'data-testid': 'card-meal_plan' },
    h('p', { class: 'card-kind' }, t().mealPlanSuggestion),
    title(card, 'title', 'name') !== '' && h('h4', {}, title(card, 'title', 'name')),
    entries.length > 0 &&
      h(
        'ul',
        {},
        entries.map((e) => {
          const o = obj(e) ?? {};
          const slot = str(o['slot']);
          const slotText = slot === 'breakfast' || slot === 'lunch' || slot === 'dinner' ? t()[slot] : slot;
          return h(
            'li',
            {},
            [str(o['date']), slotText, title(o, 'recipeName', 'recipe', 'name')]
              .filter((x) => x !== '')
              .join(' · '),
          );
        }),
      ),
    rows(card, ['type', 'title', 'name', 'entries', 'days', 'meals']),
  );
}

/** Other fields as a definition list of text. */
function rows(card: Record<string, unknown>, skip: readonly string[]): Child {
  const rest = Object.entries(card).filter(([key]) => !skip.includes(key));
  if (rest.length === 0) return null;
  return h(
    'dl',
    { class: 'card-extra' },
    rest.map(([key, value]) => [
      h('dt', {}, key),
      h('dd', {}, typeof value === 'string' ? value : JSON.stringify(value)),
    ]),
  );
}
