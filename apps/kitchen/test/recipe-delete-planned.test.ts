import { expect, it } from 'vitest';
import { describeEachBackend, TODAY } from './harness.js';

/**
 * Found in review: deleting a recipe silently deleted every meal-plan entry that used it (the
 * foreign key cascades), a member's planned dinner among them, with a 204. A recipe planned from
 * today on is refused now (409 CONFLICT, naming the days); one planned only in the past is
 * deleted, its past entries with it (history of a recipe that is gone).
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('deleting a recipe that is on the meal plan', (harness) => {
  async function planned(date: string) {
    const h = harness();
    const mama = await h.login('mama');
    const xiaojia = await h.login('xiaojia');
    const recipe = await h.request('POST', '/api/recipes', {
      token: mama,
      body: { name: '审查用菜', ingredients: [{ name: '鸡蛋' }] },
    });
    const recipeId = json(recipe)['id'] as string;
    const entry = await h.request('POST', '/api/meal-plans', {
      token: xiaojia,
      body: { date, slot: 'dinner', recipeId, note: '爸爸生日' },
    });
    expect(entry.status).toBe(201);
    return { h, mama, xiaojia, recipeId, entryId: json(entry)['id'] as string };
  }

  it('planned today or later: 409 CONFLICT naming the day, recipe and entry kept', async () => {
    const { h, mama, xiaojia, recipeId, entryId } = await planned(TODAY);
    const deleted = await h.request('DELETE', `/api/recipes/${recipeId}`, { token: mama });
    expect(deleted.status).toBe(409);
    expect(json(deleted)['error']).toMatchObject({ code: 'CONFLICT', field: 'id' });
    expect(JSON.stringify(json(deleted))).toContain(TODAY);
    expect((await h.request('GET', `/api/meal-plans/${entryId}`, { token: xiaojia })).status).toBe(200);
    expect((await h.request('GET', `/api/recipes/${recipeId}`, { token: mama })).status).toBe(200);
  });

  it('planned only in the past: deleted, with its past entries', async () => {
    const { h, mama, xiaojia, recipeId, entryId } = await planned('2026-04-20');
    expect((await h.request('DELETE', `/api/recipes/${recipeId}`, { token: mama })).status).toBe(204);
    expect((await h.request('GET', `/api/meal-plans/${entryId}`, { token: xiaojia })).status).toBe(404);
  });
});
