import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

/**
 * Found in review: dates that `isoDate` (src/domain/schemas.ts:7-13) accepts but the database cannot
 * store. The README's error contract (apps/kitchen/README.md "Errors are ..." paragraph, 400
 * `INVALID_PARAMETER` naming the field; 500 `INTERNAL` is "a bug") says bad input is a 400.
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('dates outside 1900–2999', (harness) => {
  // Contract: invalid input → 400 INVALID_PARAMETER naming the field (README "Errors are"),
  // isoDate "a real calendar date" (schemas.ts:6). Year 0000 does not exist in PostgreSQL's
  // calendar (1 BC is 0001-12-31 BC), so the INSERT fails and the user gets a 500.
  it('a meal plan on 0000-01-01 is a 400 naming date, not a 500', async () => {
    const h = harness();
    const token = await h.login('mama');
    const recipes = json(await h.request('GET', '/api/recipes', { token }))['recipes'] as Json[];
    const recipeId = recipes[0]?.['id'] as string;
    const reply = await h.request('POST', '/api/meal-plans', {
      token,
      body: { date: '0000-01-01', slot: 'dinner', recipeId },
    });
    expect({ status: reply.status, error: json(reply)['error'] }).toMatchObject({
      status: 400,
      error: { code: 'INVALID_PARAMETER', field: 'date' },
    });
  });

  // Same contract, fridge `expiresOn` (schemas.ts:24 uses isoDate).
  it('a fridge item expiring on 0000-06-01 is a 400 naming expiresOn, not a 500', async () => {
    const h = harness();
    const token = await h.login('mama');
    const reply = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '古董罐头', quantity: 1, unit: '罐', expiresOn: '0000-06-01' },
    });
    expect({ status: reply.status, error: json(reply)['error'] }).toMatchObject({
      status: 400,
      error: { code: 'INVALID_PARAMETER', field: 'expiresOn' },
    });
  });

  // Same contract on a read: `?from=&to=` (README REST table, meal-plans range).
  it('a meal plan range in year 0000 is a 400, not a 500', async () => {
    const h = harness();
    const token = await h.login('mama');
    const reply = await h.request('GET', '/api/meal-plans?from=0000-01-01&to=0000-01-07', { token });
    expect({ status: reply.status, error: json(reply)['error'] }).toMatchObject({
      status: 400,
      error: { code: 'INVALID_PARAMETER', field: 'from' },
    });
  });

  // `?week=<any day>` → Monday–Sunday (meal-plan-routes.ts:14, README REST table). The last
  // week isoDate accepts (9999-12-31) ends in year 10000, which `addDays` formats as
  // '+010000-01', so a valid `week` is refused naming a field (`to`) the caller never sent.
  it('week=9999-12-31 is answered or refused naming week, never blamed on `to`', async () => {
    const h = harness();
    const token = await h.login('mama');
    const reply = await h.request('GET', '/api/meal-plans?week=9999-12-31', { token });
    if (reply.status !== 200) expect(json(reply)['error']).toMatchObject({ field: 'week' });
  });
});
