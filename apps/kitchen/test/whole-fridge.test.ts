import { expect, it } from 'vitest';
import { runAgent, runPlanAgent, type MessageEvent, type ObserveStep, type RunLimits } from 'reins';
import { kitchenAgent } from '../src/assistant/agent.js';
import type { KitchenAnswer } from '../src/assistant/cards.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { toReinsPrincipal } from '../src/services/principal.js';
import { fakeNutrition } from './assistant-helpers.js';
import { describeEachBackend, TODAY, type Harness } from './harness.js';

/*
 * Issue 19: only the first 8 fridge items reached search_recipes (蒜蓉西兰花 "missing 大蒜",
 * 麻婆豆腐 "missing 郫县豆瓣酱", both in the pantry), and at ~150 items the fridge observation
 * was cut and the answer became "暂时读不到家里的数据（fridge_items：TRUNCATED）". Recipes are now
 * matched by the recipe service against the whole fridge and pantry in SQL; fridge_items is a
 * bounded, ranked view with the total.
 */

/** 小贾家 with `extra` filler items that expire after everything else, and its 大蒜 moved last. */
async function crowdFridge(h: Harness, extra: number): Promise<string> {
  const household = await h.householdId('小贾家');
  await h.db.query(
    `UPDATE fridge_items SET expires_on = $2::date + 400 WHERE household_id = $1 AND name = '大蒜'`,
    [household, TODAY],
  );
  await h.db.query(
    `INSERT INTO fridge_items (id, household_id, name, quantity, unit, location, expires_on, created_at, updated_at)
     SELECT 'filler-' || n, $1, '储备食材' || n, 1, '份', 'pantry', $2::date + 100 + (n % 200), now(), now()
     FROM generate_series(1, $3::int) AS n`,
    [household, TODAY, extra],
  );
  return household;
}

async function ask(
  h: Harness,
  query: string,
  kind: 'kitchen' | 'kitchen-plan',
  limits: Partial<RunLimits> = {},
) {
  const agent = kitchenAgent(h.services, {
    model: kitchenDemoModel({ now: () => h.clock.now }),
    nutrition: fakeNutrition().lookup,
    limits,
  });
  const input = { ...agent, query, principal: toReinsPrincipal(await h.principal('xiaojia')) };
  const run = kind === 'kitchen' ? runAgent(input) : runPlanAgent(input);
  const record = await run.result;
  const observations = run.events.flatMap((e) =>
    e.type === 'step' && e.phase === 'observe' ? [(e as ObserveStep).observation] : [],
  );
  const message = run.events.find((e): e is MessageEvent => e.type === 'message');
  return {
    record,
    observations,
    reply: message?.text ?? '',
    data: message?.data as KitchenAnswer | undefined,
  };
}

describeEachBackend(
  'the whole fridge, in the service (issue 19)',
  (harness) => {
    it('a step limit is reported as a limit (stopped, max_steps), never as missing data', async () => {
      const h = harness();
      const blames = ['could not read', '读不到', 'None of your recipes fits', '对不上'];
      const questions = [
        ['What can I cook tonight?', '蒜蓉西兰花', 'step limit'],
        ['冰箱里有什么快过期了？顺便告诉我100克鸡蛋的热量', '134.5', '步数上限'],
      ] as const;
      for (const [query, fact, limit] of questions) {
        // One step: no tools at all. The run stops at its limit and says so, in the question's language.
        const one = await ask(h, query, 'kitchen', { maxSteps: 1 });
        const why = `maxSteps 1 "${query}": ${one.reply}`;
        expect(one.record.status, why).toBe('stopped');
        expect(one.record.stop_reason, why).toBe('max_steps');
        expect(one.reply, why).toContain(limit);
        for (const blame of blames) expect(one.reply, why).not.toContain(blame);
        // Two steps: every read is in the first round, so the answer is whole.
        const two = await ask(h, query, 'kitchen', { maxSteps: 2 });
        expect(two.record.status, two.reply).toBe('success');
        expect(two.reply).toContain(fact);
        for (const blame of blames) expect(two.reply).not.toContain(blame);
      }
      // Plan-and-execute at its smallest limit (a plan and an answer): every read is one round.
      const plan = await ask(h, 'What can I cook tonight?', 'kitchen-plan', { maxSteps: 2 });
      expect(plan.record.status, plan.reply).toBe('success');
      expect(plan.reply).toContain('蒜蓉西兰花');
    });

    it('500 fridge items: recipes matched against all of them, the fridge view bounded with its total', async () => {
      const h = harness();
      const household = await crowdFridge(h, 484); // + the 16 seeded items = 500
      const p = await h.principal('xiaojia');
      const { items, total } = await h.services.fridge.overview(p, {});
      expect(total).toBe(500);
      expect(items).toHaveLength(20);
      expect(items[0]?.name).toBe('牛奶'); // expired first, then the soonest
      expect(items.map((i) => i.name)).not.toContain('大蒜'); // the 500th by expiry
      const { matches, itemsAtHome } = await h.services.recipes.matchAtHome(p, {});
      expect(itemsAtHome).toBe(499); // the expired 牛奶 is not usable
      const garlic = matches.find((m) => m.recipe.name === '蒜蓉西兰花');
      expect(garlic?.matched).toEqual(['西兰花', '大蒜']);
      expect(garlic?.missing).toEqual(['盐']);
      const mapo = matches.find((m) => m.recipe.name === '麻婆豆腐');
      expect(mapo?.matched).toContain('郫县豆瓣酱');
      // Only this household's rows: 老王家's fridge (排骨, 鲈鱼) matches none of 小贾家's recipes.
      const wang = await h.services.recipes.matchAtHome(await h.principal('laowang'), {});
      expect(wang.matches.map((m) => m.recipe.name)).not.toContain('蒜蓉西兰花');
      expect(wang.itemsAtHome).toBe(6);
      await h.db.query(`DELETE FROM fridge_items WHERE household_id = $1 AND id LIKE 'filler-%'`, [
        household,
      ]);
    });

    it('500 fridge items: both agents answer from the whole fridge, nothing cut', async () => {
      const h = harness();
      const household = await crowdFridge(h, 484);
      for (const kind of ['kitchen', 'kitchen-plan'] as const) {
        const cook = await ask(h, 'What can I cook tonight?', kind);
        const why = `${kind}: ${cook.reply}`;
        expect(cook.record.status, why).toBe('success');
        expect(cook.reply, why).not.toContain('TRUNCATED');
        const fridge = cook.observations.find((o) => o.tool === 'fridge_items');
        expect((fridge?.result as { total: number }).total).toBe(500);
        const cards = cook.data?.cards ?? [];
        const garlic = cards.find((c) => c.type === 'recipe' && c.name === '蒜蓉西兰花');
        expect(garlic, why).toBeDefined();
        for (const card of cards)
          if (card.type === 'recipe') expect(card.missing ?? []).not.toContain('大蒜');
        const expiring = await ask(h, '冰箱里有什么快过期了？', kind);
        expect(expiring.reply).toContain('家里共有 500 件食材');
        expect(expiring.reply).toContain('嫩豆腐');
        expect(expiring.reply).not.toContain('TRUNCATED');
      }
      await h.db.query(`DELETE FROM fridge_items WHERE household_id = $1 AND id LIKE 'filler-%'`, [
        household,
      ]);
    });
  },
  'pglite',
);
