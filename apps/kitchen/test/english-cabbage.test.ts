import { describe, expect, it } from 'vitest';
import { lookUp, service } from './nutrition-lookup-helpers.js';

/*
 * food-names.ts maps English names to "the Chinese names ... the nutrition table's aliases use",
 * "so 'calories in pork' and '猪肉的热量' find the same entry". The nutrition server's own alias
 * table says cabbage = 卷心菜/包菜/圆白菜 (Cabbage, green, C015) and 白菜 = Chinese cabbage
 * (C013). Asking the kitchen for "cabbage" must give the entry the table gives for "cabbage" (it
 * mapped cabbage to 白菜).
 */
describe('English "cabbage" through the kitchen nutrition lookup', () => {
  it('is the table entry for cabbage (Cabbage, green), not Chinese cabbage', async () => {
    const direct = await service.getFood({ name: 'cabbage' });
    expect(direct.ok && direct.value.code).toBe('C015');
    const o = await lookUp('cabbage');
    expect((o?.result as { entry?: { code: string; name: string } }).entry?.name).toBe('Cabbage, green');
  });
});
