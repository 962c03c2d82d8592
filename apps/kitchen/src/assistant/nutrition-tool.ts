import { defineTool, ToolError, type ToolContext } from 'reins';
import { z } from 'zod';

/** Nutrients per 100 g as the nutrition server gives them (`get_food`'s `per100g`). */
export interface NutritionPer100g {
  readonly energyKcal: number | null;
  readonly proteinG: number | null;
  readonly fatG: number | null;
  readonly carbohydrateG: number | null;
  readonly fibreG?: number | null;
  readonly sodiumMg?: number | null;
}

/** One matched entry of the composition table. Extra fields (a `provenance` among them) are ignored. */
export interface NutritionEntry {
  readonly code: string;
  readonly name: string;
  readonly matchedAlias?: string | null;
  readonly note?: string;
  readonly source: string;
  readonly per100g: NutritionPer100g;
}

/**
 * Looks a food up in the nutrition data service: the entry, or `null` when the table has no
 * such food. Throws when the service cannot answer (down, timed out). Gets the calling tool's
 * context (its `signal` must be honoured). The real one is the nutrition MCP server's
 * `get_food` through `@reins/mcp` (`mcpNutritionLookup`); tests pass a fake.
 */
export type NutritionLookup = (food: string, ctx: ToolContext) => Promise<NutritionEntry | null>;

const num = z.number().nullable();
const entrySchema = z.object({
  code: z.string(),
  name: z.string(),
  matchedAlias: z.string().nullable(),
  note: z.string().nullable(),
  source: z.string(),
  basis: z.literal('per 100 g edible portion'),
  per100g: z.object({
    energyKcal: num,
    proteinG: num,
    fatG: num,
    carbohydrateG: num,
    fibreG: num,
    sodiumMg: num,
  }),
});

export const nutritionOutput = z.discriminatedUnion('found', [
  z.object({
    food: z.string(),
    found: z.literal(true),
    provenance: z.literal('mcp_exact'),
    entry: entrySchema,
  }),
  z.object({
    food: z.string(),
    found: z.literal(false),
    provenance: z.null(),
    note: z.string(),
  }),
]);

const orNull = (value: number | null | undefined): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/**
 * `nutrition_lookup`: per-100 g values of one food. `provenance: "mcp_exact"` is stamped here,
 * by this code path, on values that came from the lookup — the model cannot set it (the input
 * is `{food}` only) and whatever the lookup says about provenance is not copied.
 */
export function nutritionTool(lookup: NutritionLookup) {
  return defineTool({
    name: 'nutrition_lookup',
    description:
      'Nutrition per 100 g edible portion of one food or ingredient (Chinese or English name, e.g. 鸡蛋, pork) ' +
      'from the IFCT 2017 table. found:false means no data: say so, do not invent numbers. 查询食材营养成分。',
    input: z.object({ food: z.string().trim().min(1).max(60) }),
    output: nutritionOutput,
    readOnly: true,
    run: async ({ food }, ctx) => {
      let entry: NutritionEntry | null;
      try {
        entry = await lookup(food, ctx);
      } catch (thrown) {
        if (thrown instanceof ToolError) throw thrown;
        throw new ToolError('SERVICE_UNAVAILABLE', 'the nutrition data service is unavailable');
      }
      if (entry === null) {
        return {
          food,
          found: false as const,
          provenance: null,
          note: 'no entry in the nutrition table for this food',
        };
      }
      const p = entry.per100g;
      return {
        food,
        found: true as const,
        provenance: 'mcp_exact' as const,
        entry: {
          code: entry.code,
          name: entry.name,
          matchedAlias: entry.matchedAlias ?? null,
          note: entry.note ?? null,
          source: entry.source,
          basis: 'per 100 g edible portion' as const,
          per100g: {
            energyKcal: orNull(p.energyKcal),
            proteinG: orNull(p.proteinG),
            fatG: orNull(p.fatG),
            carbohydrateG: orNull(p.carbohydrateG),
            fibreG: orNull(p.fibreG),
            sodiumMg: orNull(p.sodiumMg),
          },
        },
      };
    },
  });
}
