import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

/**
 * Found in review: `GET /api/recipes?q=` NFKC-folds the query (recipe-service.ts:125,
 * `normalizeName(filter.q)`) but compares it with `lower(name)` of the name as stored, which is
 * never folded (recipe-service.ts:159 stores `recipe.name` as typed). A name typed with a
 * full-width IME (ＸＯ酱, ３分钟) is not found even by its own exact text.
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('recipe list q and full-width names', (harness) => {
  // Contract: RecipeService.list "`q` is a substring of the name" (recipe-service.ts:32) and
  // README "Recipe search tolerates Chinese names: full-width forms are folded (NFKC)".
  it('q equal to the recipe name finds it when the name has full-width letters', async () => {
    const h = harness();
    const token = await h.login('mama');
    const created = await h.request('POST', '/api/recipes', {
      token,
      body: { name: 'ＸＯ酱炒饭', ingredients: [{ name: '米饭' }] },
    });
    expect(created.status).toBe(201);
    const found = json(
      await h.request('GET', `/api/recipes?q=${encodeURIComponent('ＸＯ酱炒饭')}`, { token }),
    );
    expect((found['recipes'] as Json[]).map((r) => r['name'])).toEqual(['ＸＯ酱炒饭']);
  });
});
