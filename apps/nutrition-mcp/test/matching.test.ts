import { describe, expect, it } from 'vitest';
import { ifctFoods } from '../src/data/ifct-table.js';
import { ALIASES } from '../src/matching/aliases.js';
import { findCandidates } from '../src/matching/find-candidates.js';
import { scoreFood } from '../src/matching/rank-candidates.js';

const representative = (query: string) => findCandidates(ifctFoods(), query).candidates[0]?.food;

describe('Chinese aliases for household ingredients', () => {
  it.each([
    ['猪肉', 'O048', 'Pork, shoulder'],
    ['牛肉', 'O025', 'Beef, shoulder'],
    ['羊肉', 'O001', 'Goat, shoulder, meat'],
    ['鸡肉', 'N003', 'Chicken, poultry, breast, skinless'],
    ['鸡蛋', 'M001', 'Egg, poultry, whole, raw'],
    ['排骨', 'O049', 'Pork, chops'],
    ['番茄', 'D075', 'Tomato, ripe, hybrid'],
    ['西红柿', 'D075', 'Tomato, ripe, hybrid'],
    ['土豆', 'F006', 'Potato, brown skin, big'],
    ['白菜', 'C013', 'Cabbage, Chinese'],
    ['菠菜', 'C033', 'Spinach'],
    ['大米', 'A015', 'Rice, raw, milled'],
    ['面粉', 'A018', 'Wheat flour, refined'],
    ['牛奶', 'L002', 'Milk, whole, Cow'],
    ['黄瓜', 'D043', 'Cucumber, green, elongate'],
    ['茄子', 'D031', 'Brinjal - all varieties'],
    ['青椒', 'D033', 'Capsicum, green'],
    ['胡萝卜', 'F002', 'Carrot, orange'],
    ['洋葱', 'G017', 'Onion, big'],
    ['大蒜', 'G011', 'Garlic, big clove'],
    ['生姜', 'G014', 'Ginger, fresh'],
    ['花生', 'H012', 'Ground nut'],
    ['虾', 'S008', 'Prawns, big'],
    ['鱼', 'P078', 'Silver carp'],
  ])('%s → %s (%s)', (name, code, english) => {
    const food = representative(name);
    expect(food?.code).toBe(code);
    expect(food?.name).toBe(english);
  });

  it('has ~40 entries, and every entry that promises data finds at least one row (no typo in a term)', () => {
    expect(ALIASES.length).toBeGreaterThanOrEqual(40);
    for (const alias of ALIASES) {
      const lookup = findCandidates(ifctFoods(), alias.names[0] ?? '');
      if ('none' in alias.match) expect(lookup.candidates, alias.names[0]).toHaveLength(0);
      else expect(lookup.candidates.length, alias.names[0]).toBeGreaterThan(0);
      if ('codes' in alias.match) expect(lookup.candidates.length).toBe(alias.match.codes.length);
    }
  });

  it('no alias name is listed twice (a second entry would be silently unreachable)', () => {
    const names = ALIASES.flatMap((a) => a.names.map((n) => n.toLowerCase()));
    expect(new Set(names).size).toBe(names.length);
  });

  it('finds the same entry by the English name, any case or width, with spaces around', () => {
    expect(representative('pork')?.code).toBe('O048');
    expect(representative('  PORK ')?.code).toBe('O048');
    expect(representative('Ｔｏｍａｔｏ')?.code).toBe('D075');
    expect(findCandidates(ifctFoods(), 'Pork').matchedAlias).toBe('pork');
  });

  it('says "none" honestly for staples the table lacks: tofu, 豆腐, yogurt', () => {
    for (const name of ['豆腐', 'tofu', '酸奶']) {
      const lookup = findCandidates(ifctFoods(), name);
      expect(lookup.candidates).toEqual([]);
      expect(lookup.note).toMatch(/has no/);
    }
  });

  it('offers nothing for a Chinese name without an alias rather than a lookalike', () => {
    const lookup = findCandidates(ifctFoods(), '臭豆腐乳');
    expect(lookup.candidates).toEqual([]);
    expect(lookup.matchedAlias).toBeNull();
  });

  it('searches English names outside the alias table, and IFCT codes', () => {
    const mushrooms = findCandidates(ifctFoods(), 'mushroom').candidates.map((c) => c.food.code);
    expect(mushrooms).toEqual(expect.arrayContaining(['J001', 'J002', 'J003', 'J004']));
    expect(findCandidates(ifctFoods(), 'pineapple').candidates[0]?.food.code).toBe('E053');
    expect(findCandidates(ifctFoods(), 'o048').candidates.map((c) => c.food.code)).toEqual(['O048']);
    expect(findCandidates(ifctFoods(), 'Z999').candidates).toEqual([]);
    expect(findCandidates(ifctFoods(), 'unobtainium').candidates).toEqual([]);
  });
});

describe('the penalty of a candidate', () => {
  const food = (name: string) => ({ code: 'X', name, scientificName: '', group: '', per100g: {} as never });

  it('is 0 for the whole food as named, and names its reasons otherwise', () => {
    expect(scoreFood(food('Egg, poultry, whole, raw'), 'Egg')).toMatchObject({ penalty: 0, reasons: [] });
    expect(scoreFood(food('Pork, liver'), 'Pork')?.reasons).toEqual(['offal']);
    expect(scoreFood(food('Pork, fat'), 'Pork')?.reasons).toEqual(['fat']);
    expect(scoreFood(food('Pork, ham'), 'Pork')?.reasons).toEqual(['processed']);
    expect(scoreFood(food('Pork, shoulder'), 'Pork')?.reasons).toEqual(['part']);
    expect(scoreFood(food('Rice flakes'), 'Rice')?.reasons).toEqual(['compound name', 'processed']);
    expect(scoreFood(food('Poultry, chicken, liver'), 'Chicken')?.reasons).toEqual(['not at head', 'offal']);
  });

  it('does not count the words of the term itself', () => {
    expect(scoreFood(food('Pork, liver'), 'Pork, liver')?.penalty).toBe(0);
    expect(scoreFood(food('Groundnut oil'), 'Groundnut oil')?.penalty).toBe(0);
  });

  it('needs whole words: "Egg" is not in "Eggplant", "Pork" is not in "Porky"', () => {
    expect(scoreFood(food('Eggplant'), 'Egg')).toBeUndefined();
    expect(scoreFood(food('Porky, thing'), 'Pork')).toBeUndefined();
  });

  it('orders whole < part < processed < offal or fat', () => {
    const p = (name: string) => scoreFood(food(name), 'Pork')?.penalty ?? Infinity;
    expect(p('Pork, whole')).toBeLessThan(p('Pork, shoulder'));
    expect(p('Pork, shoulder')).toBeLessThan(p('Pork, ham'));
    expect(p('Pork, ham')).toBeLessThan(p('Pork, liver'));
    expect(p('Pork, ham')).toBeLessThan(p('Pork, fat'));
  });
});
