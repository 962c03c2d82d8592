import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

/**
 * Found in review: "use up" keeps what is left to 3 decimals (`round(quantity - n, 3)`, so that
 * 0.1 + 0.2 leftovers do not keep a phantom item), while create, PATCH and use took any finite
 * quantity: using 0.0004 of 1 answered 200 and left 1 (the use lost), using 1.9996 of 2 removed
 * the item though 0.0004 was left. Quantities have at most 3 decimals now (a thousandth of a
 * unit: a gram of a kilo), refused naming the field otherwise, so the arithmetic is exact.
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;

describeEachBackend('fridge quantities: at most 3 decimals, used exactly', (harness) => {
  it('a use finer than a thousandth is refused, naming quantity; the item is unchanged', async () => {
    const h = harness();
    const token = await h.login('mama');
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '藏红花', quantity: 1, unit: 'kg' },
    });
    const id = json(created)['id'] as string;
    for (const quantity of [0.0004, 1.9996]) {
      const used = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity } });
      expect(used.status).toBe(400);
      expect(json(used)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: 'quantity' });
    }
    const after = await h.request('GET', `/api/fridge/${id}`, { token });
    expect(json(after)).toMatchObject({ quantity: 1, version: 1 });
  });

  it('a stored quantity finer than a thousandth is refused (create and PATCH)', async () => {
    const h = harness();
    const token = await h.login('mama');
    const made = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '黄油', quantity: 2.0004, unit: 'kg' },
    });
    expect(made.status).toBe(400);
    expect(json(made)['error']).toMatchObject({ field: 'quantity' });
  });

  it('three decimals are used exactly: 1.999 of 2 leaves 0.001, then 0.001 removes it', async () => {
    const h = harness();
    const token = await h.login('mama');
    const created = await h.request('POST', '/api/fridge', {
      token,
      body: { name: '黄油', quantity: 2, unit: 'kg' },
    });
    const id = json(created)['id'] as string;
    const first = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 1.999 } });
    expect(json(first)).toMatchObject({ removed: false, item: { quantity: 0.001 } });
    const second = await h.request('POST', `/api/fridge/${id}/use`, { token, body: { quantity: 0.001 } });
    expect(json(second)).toMatchObject({ removed: true, item: null });
  });
});
