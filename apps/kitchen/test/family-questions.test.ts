import { describe, expect, it } from 'vitest';
import { runAgent, runPlanAgent, type MessageEvent, type ObserveStep, type RunEvent } from 'reins';
import { kitchenAgent } from '../src/assistant/agent.js';
import type { KitchenAnswer } from '../src/assistant/cards.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { KITCHEN_DEMO_NOTICE } from '../src/assistant/demo/write-answer.js';
import type { NutritionEntry, NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { toReinsPrincipal } from '../src/services/principal.js';
import { BLAMES_DATA, FAMILY_QUESTIONS, type FamilyQuestion } from './family-questions.js';
import { describeEachBackend, type Harness } from './harness.js';

const entry = (code: string, name: string, energyKcal: number, proteinG: number): NutritionEntry => ({
  code,
  name,
  source: 'IFCT 2017',
  per100g: { energyKcal, proteinG, fatG: 10, carbohydrateG: 1, fibreG: 0, sodiumMg: 50 },
});

/** The nutrition service of the table: Chinese names only, so English ones must be mapped. */
function tableNutrition() {
  const asked: string[] = [];
  const table: Record<string, NutritionEntry> = {
    鸡蛋: entry('O016', 'Egg, poultry, whole, raw', 134.5, 13.3),
    猪肉: entry('M023', 'Pork, shoulder', 263, 17.4),
    大米: entry('A015', 'Rice, raw, milled', 356, 7.9),
    番茄: entry('D068', 'Tomato, ripe', 20, 0.9),
  };
  const lookup: NutritionLookup = (food) => {
    asked.push(food);
    return Promise.resolve(table[food] ?? null);
  };
  return { lookup, asked };
}

type AgentKind = 'kitchen' | 'kitchen-plan';

async function askAs(h: Harness, kind: AgentKind, row: FamilyQuestion) {
  const nutrition = tableNutrition();
  const agent = kitchenAgent(h.services, {
    model: kitchenDemoModel({ now: () => h.clock.now }),
    nutrition: nutrition.lookup,
  });
  const principal = toReinsPrincipal(await h.principal(row.user ?? 'xiaojia'));
  const input = {
    query: row.q,
    model: agent.model,
    tools: agent.tools,
    limits: agent.limits,
    instructions: agent.instructions,
    answer: agent.answer,
    principal,
  };
  const run = kind === 'kitchen' ? runAgent(input) : runPlanAgent(input);
  const record = await run.result;
  const events: readonly RunEvent[] = run.events;
  const observations = events.flatMap((e) =>
    e.type === 'step' && e.phase === 'observe' ? [(e as ObserveStep).observation] : [],
  );
  const message = events.find((e): e is MessageEvent => e.type === 'message');
  return { record, observations, message, asked: nutrition.asked };
}

describe('the family question table', () => {
  it('has at least 40 questions, Chinese and English', () => {
    expect(FAMILY_QUESTIONS.length).toBeGreaterThanOrEqual(40);
    expect(FAMILY_QUESTIONS.filter((r) => /[\u4e00-\u9fff]/.test(r.q)).length).toBeGreaterThanOrEqual(15);
    expect(FAMILY_QUESTIONS.filter((r) => !/[\u4e00-\u9fff]/.test(r.q)).length).toBeGreaterThanOrEqual(15);
  });
});

describeEachBackend(
  'family questions, answered from the household data (issue 19)',
  (harness) => {
    for (const kind of ['kitchen', 'kitchen-plan'] as const) {
      it.each(FAMILY_QUESTIONS.map((row) => [row.q, row.user ?? 'xiaojia', row] as const))(
        `${kind}: %s (%s)`,
        async (_q, _user, row) => {
          const { record, observations, message, asked } = await askAs(harness(), kind, row);
          const reply = message?.text ?? '';
          const why = `${kind} "${row.q}":\n${reply}\ntools: ${observations.map((o) => `${o.tool}:${o.status}`).join(', ')}`;
          expect(record.status, why).toBe('success');
          expect(reply, why).toContain(
            /[\u4e00-\u9fff]/.test(row.q) ? KITCHEN_DEMO_NOTICE.zh : KITCHEN_DEMO_NOTICE.en,
          );
          const called = new Set(observations.filter((o) => o.status === 'ok').map((o) => o.tool));
          for (const tool of row.tools) expect(called.has(tool), `${why}\nmissing call: ${tool}`).toBe(true);
          for (const tool of row.never ?? [])
            expect(
              observations.some((o) => o.tool === tool),
              `${why}\nunwanted call: ${tool}`,
            ).toBe(false);
          const cards = (message?.data as KitchenAnswer | undefined)?.cards ?? [];
          for (const type of row.cards ?? [])
            expect(
              cards.some((c) => c.type === type),
              `${why}\nno ${type} card`,
            ).toBe(true);
          for (const text of row.has) expect(reply, why).toContain(text);
          for (const text of [...(row.not ?? []), ...BLAMES_DATA]) expect(reply, why).not.toContain(text);
          for (const card of cards)
            if (card.type === 'recipe')
              for (const name of row.notMissing ?? []) expect(card.missing ?? [], why).not.toContain(name);
          for (const food of row.looked ?? []) expect(asked, why).toContain(food);
        },
      );
    }
  },
  'pglite',
);
