import { h, type Child } from './dom.js';
import { t } from './i18n.js';
import { modelText as text } from './model-text.js';
import { arr, num, obj, str } from './run-events.js';

/**
 * Action cards from a structured answer's `data` (`{reply, cards: [{type: 'recipe' |
 * 'nutrition' | 'meal_plan', …}]}`). Read tolerantly — a field the card does not know is
 * shown as a plain row, a card of an unknown type generically — so a card never silently
 * vanishes. All values are text, web addresses in them by the link rule (`model-text.ts`):
 * a card never holds a link off the site.
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
    h('h4', {}, text(type)),
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
  const uses = arr(card['uses'] ?? card['ingredients']).map(ingredientText);
  const missing = arr(card['missing']).map(ingredientText);
  const tags = arr(card['tags'])
    .map((x) => str(x))
    .filter((x) => x !== '');
  const steps = arr(card['steps']).map((s) => str(s, JSON.stringify(s)));
  const origin = str(card['origin']);
  const reason = str(card['reason']);
  return h(
    'article',
    { class: 'card card-recipe', 'data-testid': 'card-recipe' },
    h(
      'p',
      { class: 'card-kind' },
      t().recipe,
      origin !== '' &&
        h(
          'span',
          { class: `origin origin-${origin === 'household' ? 'household' : 'suggestion'}` },
          ` · ${origin === 'household' ? t().fromHousehold : t().suggestion}`,
        ),
    ),
    h('h4', {}, text(title(card, 'name', 'title', 'recipeName'))),
    reason !== '' && h('p', {}, text(reason)),
    uses.length > 0 && h('p', {}, text(`${t().uses}: ${uses.join('、')}`)),
    missing.length > 0 && h('p', { class: 'missing' }, text(`${t().missing}: ${missing.join('、')}`)),
    tags.length > 0 && h('p', { class: 'muted' }, text(tags.join(' · '))),
    steps.length > 0 &&
      h(
        'ol',
        {},
        steps.map((s) => h('li', {}, text(s))),
      ),
    rows(card, [
      'type',
      'name',
      'title',
      'recipeName',
      'uses',
      'ingredients',
      'missing',
      'tags',
      'steps',
      'id',
      'recipeId',
      'origin',
      'reason',
    ]),
  );
}

function ingredientText(value: unknown): string {
  const o = obj(value);
  if (o === undefined) return str(value, JSON.stringify(value));
  const qty = num(o['quantity']);
  const unit = str(o['unit']);
  return [str(o['name']), qty === undefined ? '' : `${qty}${unit}`].filter((x) => x !== '').join(' ');
}

/** The nutrients a card shows, in this order; their names come from the i18n table (`nutrientLabel`). */
const NUTRIENTS: readonly string[] = [
  'energyKcal',
  'proteinG',
  'fatG',
  'carbohydrateG',
  'fibreG',
  'sodiumMg',
];

function nutritionCard(card: Record<string, unknown>): HTMLElement {
  const values = obj(card['values']) ?? obj(card['per100g']) ?? obj(card['nutrients']) ?? {};
  const provenance = str(card['provenance'], 'llm_estimate');
  const basis = str(card['basis'], 'per_100g');
  const known = NUTRIENTS.filter((key) => num(values[key]) !== undefined);
  const source = str(card['source']);
  const note = str(card['note']);
  return h(
    'article',
    { class: 'card card-nutrition', 'data-testid': 'card-nutrition' },
    h('p', { class: 'card-kind' }, t().nutrition),
    h('h4', {}, text(title(card, 'food', 'name', 'dish'))),
    h(
      'p',
      {
        // The label in words of the page's language; the code that stamped it stays in the class.
        class: `provenance provenance-${provenance.replace(/[^a-z_]/g, '')}`,
        'data-testid': 'provenance',
      },
      text(t().provenance(provenance)),
    ),
    known.length > 0 &&
      h(
        'table',
        {},
        h('caption', {}, basis === 'per_serving' ? t().perServing : t().per100g),
        h(
          'tbody',
          {},
          known.map((key) =>
            h('tr', {}, h('th', {}, t().nutrientLabel(key)), h('td', {}, String(num(values[key])))),
          ),
        ),
      ),
    note !== '' && h('p', { class: 'muted' }, text(note)),
    source !== '' && h('p', { class: 'muted source' }, text(`${t().source}: ${source}`)),
    rows(card, [
      'type',
      'food',
      'name',
      'dish',
      'per100g',
      'values',
      'nutrients',
      'provenance',
      'basis',
      'source',
      'note',
    ]),
  );
}

function mealPlanCard(card: Record<string, unknown>): HTMLElement {
  const entries = arr(card['entries'] ?? card['days'] ?? card['meals']);
  const note = str(card['note']);
  return h(
    'article',
    { class: 'card card-meal-plan', 'data-testid': 'card-meal_plan' },
    h('p', { class: 'card-kind' }, t().mealPlanSuggestion),
    title(card, 'title', 'name') !== '' && h('h4', {}, text(title(card, 'title', 'name'))),
    entries.length > 0 &&
      h(
        'ul',
        {},
        entries.map((e) => {
          const o = obj(e) ?? {};
          const slot = str(o['slot']);
          const slotText = slot === 'breakfast' || slot === 'lunch' || slot === 'dinner' ? t()[slot] : slot;
          const status = str(o['status']);
          return h(
            'li',
            { class: status === 'suggested' ? 'entry-suggested' : 'entry-planned' },
            text(
              [str(o['date']), slotText, title(o, 'recipeName', 'recipe', 'name')]
                .filter((x) => x !== '')
                .join(' · '),
            ),
            status !== '' &&
              h('span', { class: 'badge' }, status === 'suggested' ? t().suggested : t().planned),
          );
        }),
      ),
    note !== '' && h('p', { class: 'muted' }, text(note)),
    rows(card, ['type', 'title', 'name', 'entries', 'days', 'meals', 'note']),
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
      h('dt', {}, text(key)),
      h('dd', {}, text(typeof value === 'string' ? value : JSON.stringify(value))),
    ]),
  );
}
