import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve } from '@reins/server';
import type { KitchenAnswer } from '../src/assistant/cards.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { connectNutrition, type NutritionConnection } from '../src/server/nutrition-bridge.js';
import { createKitchenServer } from '../src/server/kitchen-server.js';
import { describeEachBackend } from './harness.js';
import { sqlConversationStore } from '@reins/stores';
import { pgQueryable } from '../src/db/pg-queryable.js';
import { capturedLogger } from './server-helpers.js';

interface Turn {
  readonly conversationId: string;
  readonly text: string;
  readonly data: KitchenAnswer | undefined;
}

describeEachBackend('the assistant follows up within a conversation (demo model, over HTTP)', (harness) => {
  let nutrition: NutritionConnection | undefined;
  beforeAll(async () => {
    nutrition = await connectNutrition();
  }, 30_000);
  afterAll(async () => {
    await nutrition?.close();
  });

  it('"那明天呢？" after "今天晚饭吃什么？" and "它的热量呢？" after a recipe card are answered about the right thing', async () => {
    const h = harness();
    if (nutrition === undefined) throw new Error('no nutrition server');
    // Turns kept in the app's database, as `npm start` keeps them (PGlite or PostgreSQL).
    const store = await sqlConversationStore(pgQueryable(h.services.env.db));
    const server = createKitchenServer({
      conversations: { store },
      services: h.services,
      model: kitchenDemoModel({ now: () => h.clock.now }),
      nutrition: nutrition.lookup,
      quota: { ratePerWindow: 1_000 },
      logger: capturedLogger().logger,
    });
    const running = await serve(server.app, { port: 0 });
    try {
      const token = await h.login('xiaojia');
      const ask = async (input: string, conversationId?: string): Promise<Turn> => {
        const response = await fetch(`${running.url}/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({
            agent: 'kitchen',
            input,
            ...(conversationId === undefined ? {} : { conversationId }),
          }),
        });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { events: { type: string }[] };
        const start = body.events.find((e) => e.type === 'start') as unknown as { conversationId: string };
        const message = body.events.find((e) => e.type === 'message') as unknown as {
          text: string;
          data?: KitchenAnswer;
        };
        return { conversationId: start.conversationId, text: message.text, data: message.data };
      };

      const first = await ask('今天晚饭吃什么？');
      const firstRecipe = first.data?.cards.find((c) => c.type === 'recipe');
      expect(firstRecipe).toBeDefined();

      // Without the conversation, "那明天呢？" means nothing in particular.
      const alone = await ask('那明天呢？');
      expect(alone.data?.cards.some((c) => c.type === 'recipe') ?? false).toBe(false);

      const tomorrow = await ask('那明天呢？', first.conversationId);
      expect(tomorrow.conversationId).toBe(first.conversationId);
      expect(tomorrow.text).toContain('接着上一个问题：明天晚饭吃什么？');
      expect(tomorrow.data?.cards.some((c) => c.type === 'recipe')).toBe(true);

      const calories = await ask('它的热量呢？', first.conversationId);
      const recipeOfTurn = tomorrow.data?.cards.find((c) => c.type === 'recipe');
      expect(calories.text).toContain(`接着上一个问题：${recipeOfTurn?.name ?? '?'}的热量`);
      const card = calories.data?.cards.find((c) => c.type === 'nutrition');
      expect(card).toMatchObject({ food: recipeOfTurn?.name });

      const list = await fetch(`${running.url}/v1/conversations`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const { conversations } = (await list.json()) as { conversations: { id: string; turnCount: number }[] };
      expect(conversations.find((c) => c.id === first.conversationId)?.turnCount).toBe(3);
    } finally {
      await server.close();
      await running.close();
    }
  }, 60_000);
});
