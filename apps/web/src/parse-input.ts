import type { FridgeItem, Ingredient } from './types.js';

/** `番茄, 2, 个` per line → ingredients (quantity and unit optional). */
export function parseIngredients(text: string): Ingredient[] {
  return text
    .split('\n')
    .map((line) => line.split(/[,，]/).map((s) => s.trim()))
    .filter((parts) => (parts[0] ?? '') !== '')
    .map(([name = '', qty, unit]) => {
      const quantity = qty === undefined || qty === '' ? null : Number(qty);
      return {
        name,
        quantity: quantity !== null && Number.isFinite(quantity) && quantity > 0 ? quantity : null,
        unit: unit === undefined || unit === '' ? null : unit,
      };
    });
}

/** Expiring soonest first; items without a date last, then by name. */
export function byExpiry(a: FridgeItem, b: FridgeItem): number {
  const x = a.daysLeft ?? Number.POSITIVE_INFINITY;
  const y = b.daysLeft ?? Number.POSITIVE_INFINITY;
  return x === y ? a.name.localeCompare(b.name) : x - y;
}
