import { describe, expect, it } from 'vitest';
import { lookUp } from './nutrition-lookup-helpers.js';

/*
 * A duck egg is not a hen's egg: IFCT 2017 has its own entries (M011–M013, quail M014–M015).
 * The kitchen's broad word 蛋 covers 鸡蛋, 鸭蛋 and 鹌鹑蛋, so a 鸭蛋 the table did not know was
 * looked up as 蛋, the poultry egg. Asked in Chinese or in English, the lookup gives the duck's.
 */
describe('duck and quail eggs through the kitchen nutrition lookup', () => {
  it.each([
    ['鸭蛋', 'M012', 'Egg, duck, whole, raw'],
    ['duck eggs', 'M012', 'Egg, duck, whole, raw'],
    ['鹌鹑蛋', 'M014', 'Egg, quial, whole, raw'],
    ['quail egg', 'M014', 'Egg, quial, whole, raw'],
  ])('%s → %s (%s)', async (food, code, name) => {
    const o = await lookUp(food);
    const entry = (o?.result as { entry?: { code: string; name: string } }).entry;
    expect(entry?.code).toBe(code);
    expect(entry?.name).toBe(name);
  });
});
