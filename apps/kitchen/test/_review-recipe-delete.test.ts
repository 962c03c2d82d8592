import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

/**
 * Review: deleting a recipe silently deletes every meal plan entry that uses it
 * (migrations/001_init.sql:82, `FOREIGN KEY (household_id, recipe_id) REFERENCES recipes … ON
 * DELETE CASCADE`; recipe-service.ts `remove` deletes the row with no check of the plan).
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('review: recipe delete vs meal plans', (harness) => {
  // Contract: a member's planned meals are household data; nothing in the README's REST table
  // (`DELETE /api/recipes/:id`, apps/kitchen/README.md:228) says a recipe delete also removes
  // plan entries, and the 204 tells the caller nothing about it. Reasonable expectation (and
  // the brief's "a recipe delete breaking meal plans silently"): the delete is refused with
  // 409 CONFLICT while the recipe is planned, or the plan entry survives. Here the other
  // member's entry — edited with If-Match a moment before — just disappears.
  it('deleting a planned recipe does not silently delete the plan entries that use it', async () => {
    const h = harness();
    const mama = await h.login('mama');
    const xiaojia = await h.login('xiaojia');
    const recipe = await h.request('POST', '/api/recipes', {
      token: mama,
      body: { name: '审查用菜', ingredients: [{ name: '鸡蛋' }] },
    });
    expect(recipe.status).toBe(201);
    const recipeId = json(recipe)['id'] as string;
    const entry = await h.request('POST', '/api/meal-plans', {
      token: xiaojia,
      body: { date: '2026-05-06', slot: 'dinner', recipeId, note: '爸爸生日' },
    });
    expect(entry.status).toBe(201);
    const entryId = json(entry)['id'] as string;

    const deleted = await h.request('DELETE', `/api/recipes/${recipeId}`, { token: mama });
    const after = await h.request('GET', `/api/meal-plans/${entryId}`, { token: xiaojia });
    // Either answer is acceptable: refused (409, entry kept) or deleted with the entry kept.
    expect({ deleteStatus: deleted.status, entryAfterDelete: after.status }).toMatchObject({
      entryAfterDelete: 200,
    });
  });
});
