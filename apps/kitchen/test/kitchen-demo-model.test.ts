import { describe, expect, it } from 'vitest';
import { runPlanAgent, type PlanStepEvent } from 'reins';
import { kitchenAgent } from '../src/assistant/agent.js';
import { toReinsPrincipal } from '../src/services/principal.js';
import type { KitchenAnswer } from '../src/assistant/cards.js';
import { detectIntent, foodOf } from '../src/assistant/demo/intent.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { KITCHEN_DEMO_NOTICE } from '../src/assistant/demo/write-answer.js';
import { gramsOf } from '../src/assistant/grams-per-unit.js';
import { kitchenModel } from '../src/cli/start.js';
import { ask, fakeNutrition } from './assistant-helpers.js';
import { describeEachBackend, type Harness } from './harness.js';

describe('kitchen demo model: intents and names', () => {
  it.each([
    ['冰箱里有什么快过期了？', 'expiring'],
    ['What is expiring soon?', 'expiring'],
    ['今晚能做什么菜？', 'cook'],
    ['What can I cook with what is in the fridge?', 'cook'],
    ['这周的菜单怎么安排？', 'plan'],
    ["What's the plan this week?", 'plan'],
    ['家里谁有过敏？', 'allergies'],
    ['Any allergies I should know about?', 'allergies'],
    ['鸡蛋的营养成分', 'nutrition'],
    ['How many calories in pork?', 'nutrition'],
    ['你好', 'help'],
  ])('%s → %s', (query, intent) => {
    expect(detectIntent(query)).toBe(intent);
  });

  it.each([
    ['鸡蛋的营养成分是多少？', '鸡蛋'],
    ['红烧肉的热量', '红烧肉'],
    ['How many calories in pork?', 'pork'],
    ['nutrition of an egg', 'egg'],
  ])('the food of %s is %s', (query, food) => {
    expect(foodOf(query)).toBe(food);
  });

  it('without a key (or with a provider but no key) the kitchen demo model answers, and says why', async () => {
    expect((await kitchenModel({})).model.name).toBe('kitchen-demo');
    const noKey = await kitchenModel({ REINS_MODEL: 'openai:gpt-4o-mini' });
    expect(noKey.model.name).toBe('kitchen-demo');
    expect(noKey.reason).toContain('OPENAI_API_KEY');
  });
});

describe('grams per unit (mcp_derived rules)', () => {
  it.each([
    ['五花肉', 500, '克', 500],
    ['大米', 1, '千克', 1000],
    ['生抽', 15, '毫升', 15],
    ['鸡蛋', 3, '个', 150],
    ['鸭蛋', 2, '个', 120],
    ['鹌鹑蛋', 6, '个', 60],
    ['西红柿', 2, '个', 300],
    ['嫩豆腐', 1, '盒', 350],
    ['大蒜', 4, '瓣', 20],
    ['ＰＯＲＫ', 2, 'ＫＧ', 2000],
  ] as const)('%s %d %s = %d g', (name, quantity, unit, grams) => {
    expect(gramsOf(name, quantity, unit)).toBe(grams);
  });

  it('a count without a rule is not guessed', () => {
    expect(gramsOf('鲍鱼', 2, '个')).toBeNull();
    expect(gramsOf('盐', null, '少许')).toBeNull();
    expect(gramsOf('盐', 0, '克')).toBeNull();
  });

  it('a unit named like an Object.prototype key is no unit (it gave NaN grams)', () => {
    for (const unit of ['constructor', 'toString', '__proto__', 'hasOwnProperty'])
      expect(gramsOf('猪肉', 2, unit)).toBeNull();
  });
});

async function demoAsk(h: Harness, user: string, query: string) {
  const model = kitchenDemoModel({ now: () => h.clock.now });
  const run = await ask(h, await h.principal(user), model, fakeNutrition().lookup, query);
  return { ...run, data: run.message?.data as KitchenAnswer | undefined };
}

describeEachBackend(
  'kitchen demo model over the real tools',
  (harness) => {
    it('as a plan-and-execute agent: one round of independent steps, the answer from their results', async () => {
      const h = harness();
      const agent = kitchenAgent(h.services, {
        model: kitchenDemoModel({ now: () => h.clock.now }),
        nutrition: fakeNutrition().lookup,
      });
      const run = runPlanAgent({
        ...agent,
        query: '这周的菜单怎么安排？',
        principal: toReinsPrincipal(await h.principal('laowang')),
      });
      const record = await run.result;
      expect(record.status).toBe('success');
      const plans = run.events.filter((e): e is PlanStepEvent => e.type === 'step' && e.phase === 'plan');
      expect(plans).toHaveLength(1);
      expect(plans[0]?.plan.steps.map((s) => [s.action, s.dependsOn])).toEqual([
        ['recall_memories', []],
        ['meal_plan', []],
        ['fridge_items', []],
        ['household_preferences', []],
        ['search_recipes', []], // reads the whole fridge itself: no step waits for another
      ]);
      expect(record.format).toBe('structured');
      expect(record.final_answer).toContain(KITCHEN_DEMO_NOTICE.zh);
      expect(record.final_answer).toContain('虾'); // 老王家's allergy, read by the plan's step
      expect(record.final_answer).not.toContain('花生');
    });

    it('each household gets its own data; every answer is labeled demo', async () => {
      const h = harness();
      const a = await demoAsk(h, 'xiaojia', '家里谁有过敏？');
      const b = await demoAsk(h, 'laowang', '家里谁有过敏？');
      expect(a.answer).toContain(KITCHEN_DEMO_NOTICE.zh);
      expect(a.answer).toContain('花生');
      expect(a.answer).not.toContain('虾');
      expect(b.answer).toContain('虾');
      expect(b.answer).not.toContain('花生');
      expect(a.message?.format).toBe('structured');
      expect(a.record.steps.length).toBeLessThanOrEqual(4);
    });

    it('nutrition of a household dish is mcp_derived per serving from its ingredients', async () => {
      const h = harness();
      const run = await demoAsk(h, 'xiaojia', '番茄炒蛋的热量是多少？');
      const card = run.data?.cards.find((c) => c.type === 'nutrition');
      // Fake table: only 鸡蛋 (134.5 kcal / 100 g); 3 eggs × 50 g = 150 g → 201.75 kcal for 2 servings.
      expect(card).toMatchObject({
        food: '番茄炒蛋',
        basis: 'per_serving',
        provenance: 'mcp_derived',
        values: { energyKcal: 100.9, proteinG: 10 },
      });
      const observed = run.observations.find((o) => o.tool === 'nutrition_lookup')?.result as {
        dish: { ingredients: { name: string; status: string }[] };
      };
      expect(observed.dish.ingredients).toContainEqual(
        expect.objectContaining({ name: '鸡蛋', status: 'counted' }),
      );
      expect(observed.dish.ingredients).toContainEqual(
        expect.objectContaining({ name: '番茄', status: 'no_entry' }),
      );
      // 老王家's 番茄炒蛋 has 4 eggs: its own recipe, not 小贾家's.
      const theirs = await demoAsk(h, 'laowang', '番茄炒蛋的热量是多少？');
      expect(theirs.data?.cards[0]).toMatchObject({
        provenance: 'mcp_derived',
        values: { energyKcal: 134.5 },
      });
    });

    it('a food the table lacks: no numbers, said plainly', async () => {
      const h = harness();
      const run = await demoAsk(h, 'xiaojia', 'nutrition of tofu');
      expect(run.answer).toContain(KITCHEN_DEMO_NOTICE.en);
      expect(run.answer).toContain('no entry');
      expect(run.data?.cards).toEqual([]);
    });

    it('the week: planned meals from the household plan, suggestions for open dinners, nothing with an allergen', async () => {
      const h = harness();
      const run = await demoAsk(h, 'xiaojia', '这周的菜单怎么安排？');
      const card = run.data?.cards[0];
      if (card?.type !== 'meal_plan') throw new Error('no meal plan card');
      expect(card.entries.filter((e) => e.status === 'planned').map((e) => e.recipeName)).toContain('红烧肉');
      expect(card.entries.every((e) => e.recipeId !== undefined)).toBe(true);
      expect(run.answer).toContain('花生');
    });
  },
  'pglite',
);
