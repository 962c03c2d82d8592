import { z } from 'zod';
import { defineAnswer } from 'reins';

/**
 * A stand-in for the kitchen's action-card answer format (the `kitchen` branch defines the
 * real one): a reply and recipe / nutrition / meal-plan cards, with each nutrition card's
 * provenance stamped by code from the run's nutrition observations — a model's own claim is
 * overwritten.
 */
const recipe = z.object({
  type: z.literal('recipe'),
  name: z.string(),
  ingredients: z.array(z.string()),
  missing: z.array(z.string()).optional(),
});
const nutrition = z.object({
  type: z.literal('nutrition'),
  food: z.string(),
  per100g: z.record(z.string(), z.number()).optional(),
  provenance: z.string().optional(),
});
const mealPlan = z.object({
  type: z.literal('meal_plan'),
  entries: z.array(z.object({ date: z.string(), slot: z.string(), recipeName: z.string() })),
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
