import { z } from 'zod';
import { MAX_SEARCH_LIMIT } from '../service/nutrition-service.js';

const notBlank = (s: string): boolean => s.trim() !== '';

/** Model-written input: strict (unknown keys are refused), sizes capped. */
export const searchFoodsInput = z.strictObject({
  query: z
    .string()
    .min(1)
    .max(100)
    .refine(notBlank, 'must not be blank')
    .describe('A food name in Chinese or English, e.g. 猪肉, 西红柿, "pork", or an IFCT code like O048.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .optional()
    .describe(`How many candidates, 1..${MAX_SEARCH_LIMIT} (default 5).`),
});

export const getFoodInput = z
  .strictObject({
    code: z
      .string()
      .regex(/^[A-Za-z]\d{3}$/, 'an IFCT code is a letter and three digits, e.g. O048')
      .optional()
      .describe('An IFCT 2017 food code, e.g. O048.'),
    name: z
      .string()
      .min(1)
      .max(100)
      .refine(notBlank, 'must not be blank')
      .optional()
      .describe('A food name in Chinese or English; its representative entry is returned.'),
  })
  .refine((input) => (input.code === undefined) !== (input.name === undefined), {
    message: 'give exactly one of "code" or "name"',
  });

const provenance = z.literal('mcp_exact');
const source = z.literal('IFCT 2017');

export const searchFoodsOutput = z.object({
  query: z.string(),
  matchedAlias: z.string().nullable(),
  representativeCode: z.string().nullable(),
  candidates: z.array(
    z.object({
      code: z.string(),
      name: z.string(),
      group: z.string(),
      matchedAlias: z.string().nullable(),
      energyKcal: z.number().nullable().describe('kcal per 100 g; null where the table gives no energy'),
      energyKj: z.number().nullable(),
      provenance,
    }),
  ),
  note: z.string().optional(),
  source,
});

export const getFoodOutput = z.object({
  code: z.string(),
  name: z.string(),
  scientificName: z.string(),
  group: z.string(),
  matchedAlias: z.string().nullable(),
  basis: z.literal('per 100 g edible portion'),
  per100g: z.object({
    energyKj: z.number().nullable(),
    energyKcal: z.number().nullable(),
    waterG: z.number(),
    proteinG: z.number(),
    fatG: z.number(),
    carbohydrateG: z.number(),
    fibreG: z.number(),
    freeSugarsG: z.number(),
    cholesterolMg: z.number(),
    sodiumMg: z.number(),
    potassiumMg: z.number(),
    calciumMg: z.number(),
    ironMg: z.number(),
    vitaminCMg: z.number(),
  }),
  note: z.string().optional(),
  provenance,
  source,
});
