import { describe, expect, it } from 'vitest';
import { ifctFoods, parseIfctTable } from '../src/data/ifct-table.js';
import { kjToKcal } from '../src/data/food.js';
import { parseCsv } from '../src/data/parse-csv.js';

const byCode = (code: string) => {
  const food = ifctFoods().find((f) => f.code === code);
  if (food === undefined) throw new Error(`no ${code}`);
  return food;
};

describe('the IFCT 2017 table', () => {
  it('loads all 542 rows, each with a unique code', () => {
    const foods = ifctFoods();
    expect(foods).toHaveLength(542);
    expect(new Set(foods.map((f) => f.code)).size).toBe(542);
  });

  it('keeps kJ and converts to kcal (1 kcal = 4.184 kJ): Pork, shoulder 993 kJ = 237.3 kcal', () => {
    const pork = byCode('O048');
    expect(pork.name).toBe('Pork, shoulder');
    expect(pork.group).toBe('Animal Meat');
    expect(pork.per100g.energyKj).toBe(993);
    expect(pork.per100g.energyKcal).toBe(237.3);
    expect(pork.per100g.proteinG).toBe(17.41);
    expect(pork.per100g.fatG).toBe(18.83);
    expect(kjToKcal(4184)).toBe(1000);
  });

  it('converts the package grams to mg for minerals: cow milk has 118 mg calcium per 100 g', () => {
    const milk = byCode('L002');
    expect(milk.per100g.calciumMg).toBe(118);
    expect(milk.per100g.sodiumMg).toBeCloseTo(25.46, 2);
    expect(byCode('M001').per100g.cholesterolMg).toBe(366);
  });

  it('gives no energy (null, not 0 and not a computed 900) where the table has none: the oils', () => {
    const oil = byCode('T005');
    expect(oil.name).toBe('Groundnut oil');
    expect(oil.per100g.fatG).toBe(100);
    expect(oil.per100g.energyKj).toBeNull();
    expect(oil.per100g.energyKcal).toBeNull();
  });

  it('finds columns by their code, so reordered columns load the same', () => {
    const csv = [
      '"Energy; enerc","Food Code; code","Food Name; name","Scientific Name; scie","Food Group; grup","Moisture; water","Protein; protcnt","Total Fat; fatce","Carbohydrate; choavldf","Dietary Fiber; fibtg","Free Sugars; fsugar","Cholesterol; cholc","Sodium (Na); na","Potassium (K); k","Calcium (Ca); ca","Iron (Fe); fe","Ascorbic acids (C); vitc"',
      '418.4,X001,"Test, ""quoted"", food",,Group,1,2,3,4,5,6,0.001,0.002,0.003,0.004,0.005,0.006',
    ].join('\r\n');
    const [food] = parseIfctTable(csv);
    expect(food).toMatchObject({ code: 'X001', name: 'Test, "quoted", food', group: 'Group' });
    expect(food?.per100g).toMatchObject({
      energyKj: 418.4,
      energyKcal: 100,
      proteinG: 2,
      cholesterolMg: 1,
      vitaminCMg: 6,
    });
  });

  it('refuses a broken file instead of loading wrong numbers', () => {
    expect(() => parseIfctTable('"Food Code; code"\nA001')).toThrow(/no column "name"/);
    const header = parseCsv(
      '"Food Code; code","Food Name; name","Scientific Name; scie","Food Group; grup","Energy; enerc","Moisture; water","Protein; protcnt","Total Fat; fatce","Carbohydrate; choavldf","Dietary Fiber; fibtg","Free Sugars; fsugar","Cholesterol; cholc","Sodium (Na); na","Potassium (K); k","Calcium (Ca); ca","Iron (Fe); fe","Ascorbic acids (C); vitc"',
    )[0];
    const row = ['A001', 'x', '', 'g', 'n/a', ...Array.from({ length: 12 }, () => '1')];
    const csv = [header?.map((h) => `"${h}"`).join(','), row.join(',')].join('\n');
    expect(() => parseIfctTable(csv)).toThrow(/A001.*Energy; enerc.*not a number/);
  });
});

describe('parseCsv', () => {
  it('handles quotes, doubled quotes, separators and line breaks inside quotes, CRLF and a BOM', () => {
    expect(parseCsv('\ufeffa,"b,c","d""e"\r\n"f\ng",h\n')).toEqual([
      ['a', 'b,c', 'd"e'],
      ['f\ng', 'h'],
    ]);
    expect(parseCsv('a,b')).toEqual([['a', 'b']]);
    expect(parseCsv('a,\n')).toEqual([['a', '']]);
  });

  it('throws on a quote left open', () => {
    expect(() => parseCsv('a,"b')).toThrow(/quoted field/);
  });
});
