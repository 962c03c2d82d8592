/** Nutrients per 100 g edible portion, as IFCT 2017 gives them (minerals converted from g to mg). */
export interface Nutrients {
  /** kJ as the table gives it; `null` where the table gives 0 for a food that plainly has energy (the oils). */
  readonly energyKj: number | null;
  /** `energyKj / 4.184`, one decimal; `null` with `energyKj`. */
  readonly energyKcal: number | null;
  readonly waterG: number;
  readonly proteinG: number;
  readonly fatG: number;
  readonly carbohydrateG: number;
  readonly fibreG: number;
  readonly freeSugarsG: number;
  readonly cholesterolMg: number;
  readonly sodiumMg: number;
  readonly potassiumMg: number;
  readonly calciumMg: number;
  readonly ironMg: number;
  readonly vitaminCMg: number;
}

/** One row of the IFCT 2017 composition table. */
export interface Food {
  /** IFCT food code, e.g. `O048`. */
  readonly code: string;
  /** English name as the table spells it, e.g. `Pork, shoulder`. */
  readonly name: string;
  readonly scientificName: string;
  /** IFCT food group, e.g. `Animal Meat`. */
  readonly group: string;
  readonly per100g: Nutrients;
}

export const KJ_PER_KCAL = 4.184;

export function kjToKcal(kj: number): number {
  return Math.round((kj / KJ_PER_KCAL) * 10) / 10;
}
