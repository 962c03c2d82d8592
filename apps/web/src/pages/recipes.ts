import { api, draftKey, etag } from '../api.js';
import { removeButton } from './confirm.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import { parseIngredients } from '../parse-input.js';
import type { Recipe } from '../types.js';
import { errorLine, field } from './common.js';

export function recipesPage(): HTMLElement {
  const list = h('div', { class: 'recipe-list', 'data-testid': 'recipe-list' });
  const error = errorLine();
  const drafts = draftKey();

  const load = async () => {
    const reply = await api<{ recipes: Recipe[] }>('GET', '/api/recipes');
    if (!reply.ok) return error.show(reply.error);
    error.show(null);
    replace(
      list,
      reply.data.recipes.length === 0 ? h('p', { class: 'hint' }, t().empty) : reply.data.recipes.map(card),
    );
  };

  const card = (recipe: Recipe): HTMLElement =>
    h(
      'article',
      { class: 'card', 'data-testid': 'recipe' },
      h('h3', {}, recipe.name),
      h(
        'p',
        { class: 'muted' },
        `${t().servings}: ${recipe.servings}${recipe.tags.length > 0 ? ` · ${recipe.tags.join(', ')}` : ''}`,
      ),
      h(
        'p',
        {},
        `${t().ingredients}: `,
        recipe.ingredients
          .map((i) =>
            [i.name, i.quantity === null ? '' : `${i.quantity}${i.unit ?? ''}`]
              .filter((x) => x !== '')
              .join(' '),
          )
          .join('、'),
      ),
      recipe.steps.length > 0 &&
        h(
          'ol',
          {},
          recipe.steps.map((s) => h('li', {}, s)),
        ),
      removeButton(recipe.name, async () => {
        const reply = await api('DELETE', `/api/recipes/${encodeURIComponent(recipe.id)}`, undefined, {
          ifMatch: etag(recipe),
        });
        if (!reply.ok) return error.show(reply.error);
        await load();
      }),
    );

  const name = h('input', { name: 'name', required: true });
  const servings = h('input', { name: 'servings', type: 'number', min: '1', max: '50', value: '2' });
  const ingredients = h('textarea', {
    name: 'ingredients',
    placeholder: '番茄, 2, 个',
    required: true,
    'aria-describedby': 'recipe-ing-hint',
  });
  const steps = h('textarea', { name: 'steps', 'aria-describedby': 'recipe-steps-hint' });
  const tags = h('input', { name: 'tags' });
  const form = h(
    'form',
    {
      class: 'stack-form',
      'aria-label': t().newRecipe,
      onsubmit: async (event) => {
        event.preventDefault();
        const body = {
          name: name.value,
          servings: Number(servings.value),
          ingredients: parseIngredients(ingredients.value),
          steps: steps.value
            .split('\n')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
          tags: tags.value
            .split(/[,，、]/)
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        };
        const reply = await api('POST', '/api/recipes', body, { idempotencyKey: drafts.key(body) });
        if (!reply.ok) return error.show(reply.error);
        drafts.done();
        form.reset();
        await load();
      },
    },
    h('h3', {}, t().newRecipe),
    field('recipe-name', t().name, name),
    field('recipe-servings', t().servings, servings),
    field('recipe-ing', t().ingredients, ingredients),
    h('p', { id: 'recipe-ing-hint', class: 'hint' }, t().ingredientsHint),
    field('recipe-steps', t().steps, steps),
    h('p', { id: 'recipe-steps-hint', class: 'hint' }, t().stepsHint),
    field('recipe-tags', t().tags, tags),
    h('button', { type: 'submit' }, t().add),
  );
  void load();
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'recipes-title' },
    h('h2', { id: 'recipes-title' }, t().recipes),
    error.el,
    list,
    form,
  );
}
