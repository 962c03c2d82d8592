import { z } from 'zod';
import { defineAnswer } from 'reins';

/**
 * A stand-in for the kitchen's action-card answer format (the `kitchen` branch defines the
 * real one): a reply and recipe / nutrition / meal-plan cards, with each nutrition card's
 * provenance stamped by code from the run's nutrition observations — a model's own claim is
 * overwritten.
 */
// Same field names as the kitchen's cards (apps/kitchen/src/assistant/cards.ts on `kitchen`).
const recipe = z.object({
  type: z.literal('recipe'),
  name: z.string(),
  origin: z.enum(['household', 'suggestion']).optional(),
  uses: z.array(z.string()).optional(),
  missing: z.array(z.string()).optional(),
});
const nutrition = z.object({
  type: z.literal('nutrition'),
  food: z.string(),
  basis: z.enum(['per_100g', 'per_serving']).optional(),
  values: z.record(z.string(), z.number()).optional(),
  provenance: z.string().optional(),
});
const mealPlan = z.object({
  type: z.literal('meal_plan'),
  title: z.string(),
  entries: z.array(
    z.object({
      date: z.string(),
      slot: z.string(),
      recipeName: z.string(),
      status: z.enum(['planned', 'suggested']),
    }),
  ),
});
const cards = z.object({
  reply: z.string(),
  cards: z.array(z.discriminatedUnion('type', [recipe, nutrition, mealPlan])),
});

export const testCardAnswer = defineAnswer({
  schema: cards,
  text: (data) => data.reply,
  finalize: (data, { observations }) => ({
    ...data,
    cards: data.cards.map((card) => {
      if (card.type !== 'nutrition') return card;
      const seen = observations.some(
        (o) =>
          o.tool === 'nutrition_lookup' &&
          o.status === 'ok' &&
          JSON.stringify(o.result ?? null).includes(JSON.stringify(card.food).slice(1, -1)),
      );
      return { ...card, provenance: seen ? 'mcp_exact' : 'llm_estimate' };
    }),
  }),
});
