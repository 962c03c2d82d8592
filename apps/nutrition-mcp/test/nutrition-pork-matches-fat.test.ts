import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Food } from '../src/data/food.js';
import { ifctFoods } from '../src/data/ifct-table.js';
import { findCandidates } from '../src/matching/find-candidates.js';
import { rankCandidates, scoreFood, type Candidate } from '../src/matching/rank-candidates.js';

/**
 * Seed 000 §6: "shortest name wins" matched 猪肉 to pure fat (816 kcal instead of the
 * representative 395), and on equal lengths the upstream order decided. IFCT 2017 has no
 * pork-fat row, so one is added here — with the lowest code and the shortest name, so a
 * rule that ranks by name length or by code alone picks it.
 */
const porkFat: Food = {
  code: 'O000',
  name: 'Pork, fat',
  scientificName: '',
  group: 'Animal Meat',
  per100g: { ...(ifctFoods()[0]?.per100g as Food['per100g']), energyKj: 3414, energyKcal: 816 },
};

const OFFAL_OR_FAT = /lungs|heart|liver|stomach|spleen|kidneys|tube|fat/;

function porkCandidates(): Candidate[] {
  const fromTable = findCandidates(ifctFoods(), '猪肉').candidates;
  const fat = scoreFood(porkFat, 'Pork');
  if (fat === undefined) throw new Error('the fat row must match "Pork"');
  return [...fromTable, fat];
}

const representativeOf = (name: string): string | undefined =>
  findCandidates(ifctFoods(), name).candidates[0]?.food.code;

describe('nutrition: pork matched fat (seed 000 §6)', () => {
  it('a shuffled candidate list for 猪肉 always yields the same representative entry, never fat or offal', () => {
    const all = porkCandidates();
    expect(all.length).toBeGreaterThanOrEqual(11);
    fc.assert(
      fc.property(fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }), (shuffled) => {
        const best = rankCandidates(shuffled)[0];
        expect(best?.food.code).toBe('O048');
        expect(best?.food.name).not.toMatch(OFFAL_OR_FAT);
      }),
      { numRuns: 500 },
    );
  });

  it('any shuffled subset with a meat cut in it picks a cut, and the same one for the same subset', () => {
    const all = porkCandidates();
    fc.assert(
      fc.property(fc.shuffledSubarray(all, { minLength: 1 }), (subset) => {
        const best = rankCandidates(subset)[0]?.food;
        const sortedFirst = rankCandidates(
          [...subset].sort((a, b) => (a.food.code < b.food.code ? -1 : 1)),
        )[0]?.food;
        expect(best?.code).toBe(sortedFirst?.code);
        if (subset.some((c) => !OFFAL_OR_FAT.test(c.food.name))) expect(best?.name).not.toMatch(OFFAL_OR_FAT);
      }),
      { numRuns: 500 },
    );
  });

  it('the representative 猪肉 entry is a cut at 237 kcal, not the 816 kcal of fat', () => {
    const best = rankCandidates(porkCandidates())[0]?.food;
    expect(best?.per100g.energyKcal).toBe(237.3);
  });

  it.each([
    ['牛肉', 'O025'],
    ['羊肉', 'O001'],
    ['鸡蛋', 'M001'],
    ['番茄', 'D075'],
    ['土豆', 'F006'],
    ['排骨', 'O049'],
  ])('control: %s keeps its representative %s under any order', (name, code) => {
    const candidates = findCandidates(ifctFoods(), name).candidates;
    expect(representativeOf(name)).toBe(code);
    fc.assert(
      fc.property(fc.shuffledSubarray([...candidates], { minLength: candidates.length }), (shuffled) => {
        expect(rankCandidates(shuffled)[0]?.food.code).toBe(code);
      }),
      { numRuns: 100 },
    );
  });

  it('control: 豆腐 stays without data (no entry is invented to fill the gap)', () => {
    expect(findCandidates(ifctFoods(), '豆腐').candidates).toEqual([]);
  });
});
