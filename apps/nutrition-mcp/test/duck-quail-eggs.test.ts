import { describe, expect, it } from 'vitest';
import { ifctFoods } from '../src/data/ifct-table.js';
import { findCandidates } from '../src/matching/find-candidates.js';

const representative = (query: string) => findCandidates(ifctFoods(), query).candidates[0]?.food;

// IFCT 2017 lists duck and quail eggs (M011–M015; "quial" is the table's own spelling): a
// duck egg is not a hen's egg (more fat, more energy per 100 g).
describe('duck and quail eggs are their own entries, not hen eggs', () => {
  it.each([
    ['鸭蛋', 'M012', 'Egg, duck, whole, raw'],
    ['duck egg', 'M012', 'Egg, duck, whole, raw'],
    ['鹌鹑蛋', 'M014', 'Egg, quial, whole, raw'],
    ['quail eggs', 'M014', 'Egg, quial, whole, raw'],
  ])('%s → %s (%s)', (name, code, english) => {
    const food = representative(name);
    expect(food?.code).toBe(code);
    expect(food?.name).toBe(english);
  });

  it('鸡蛋 still means the poultry egg', () => {
    expect(representative('鸡蛋')?.code).toBe('M001');
  });
});
