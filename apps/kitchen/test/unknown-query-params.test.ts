import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

/**
 * Found in review: routes that never call `readQuery` ignore every query parameter, so a `householdId`
 * in the query is silently dropped instead of refused (fridge-routes.ts:17 `GET /:id`,
 * household-routes.ts:27 `GET /household/members`, preference-routes.ts:10, recipe-routes.ts:37).
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('unknown query parameters', (harness) => {
  // Contract: apps/kitchen/README.md:236-237 "unknown fields and query parameters are refused —
  // so a `householdId` in a body or query is an error, never an input" (400 INVALID_PARAMETER).
  // A client asking for another household's members gets its own household's list with a 200,
  // and cannot tell that the parameter was ignored.
  it('GET /api/household/members?householdId=<other> is a 400, not the active household with 200', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const other = await h.householdId('老王家');
    const reply = await h.request('GET', `/api/household/members?householdId=${other}`, { token });
    expect({ status: reply.status, error: json(reply)['error'] }).toMatchObject({
      status: 400,
      error: { code: 'INVALID_PARAMETER', field: 'householdId' },
    });
  });

  // Same contract, a single fridge item.
  it('GET /api/fridge/:id?householdId=<other> is a 400', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const other = await h.householdId('老王家');
    const items = json(await h.request('GET', '/api/fridge', { token }))['items'] as Json[];
    const id = items[0]?.['id'] as string;
    const reply = await h.request('GET', `/api/fridge/${id}?householdId=${other}`, { token });
    expect({ status: reply.status, error: json(reply)['error'] }).toMatchObject({
      status: 400,
      error: { code: 'INVALID_PARAMETER', field: 'householdId' },
    });
  });
});
