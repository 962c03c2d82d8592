import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

/**
 * Review: "use up" rounds what is left to 3 decimals (fridge-service.ts:202,
 * `round((quantity - $4)::numeric, 3)`) while create, PATCH and use accept any finite
 * quantity (schemas.ts:16 and :49, no step). Amounts finer than 0.0005 are lost either way.
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('review: use-up arithmetic', (harness) => {
  // Contract: README "Use up": `quantity = quantity - $n`; "exactly what is left (or no body)
  // removes it", "more than is left is 409". Using 0.0004 of 1 (0.4 g of a 1 kg bag) answers
  // 200, bumps the version, and leaves 1 — the use is lost.
  it('using 0.0004 of 1 leaves 0.9996 (or is refused), never 1 with a 200', async () => {
    const h = harness();
    const token = await h.login('mama');
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '藏红花', quantity: 1, unit: 'kg' },
    });
    const id = json(created)['id'] as string;
    const used = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 0.0004 } });
    if (used.status === 200) expect(json(used)['item']).toMatchObject({ quantity: 0.9996 });
    else expect(used.status).toBe(400);
  });

  // Same contract: only "exactly what is left" removes the item. Using 1.9996 of 2 leaves
  // 0.0004, which the rounding turns into 0 and the item is deleted.
  it('using 1.9996 of 2 keeps the item with 0.0004 left', async () => {
    const h = harness();
    const token = await h.login('mama');
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '黄油', quantity: 2, unit: 'kg' },
    });
    const id = json(created)['id'] as string;
    const used = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 1.9996 } });
    expect(used.status).toBe(200);
    expect(json(used)).toMatchObject({ removed: false, item: { quantity: 0.0004 } });
  });
});
