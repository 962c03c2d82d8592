import { expect, it } from 'vitest';
import { pino } from 'pino';
import {
  runAgent,
  runPlanAgent,
  ToolError,
  type MessageEvent,
  type Model,
  type ObserveStep,
  type RunLimits,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { kitchenAgent } from '../src/assistant/agent.js';
import type { KitchenAnswer } from '../src/assistant/cards.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import type { NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { createKitchenServer } from '../src/server/kitchen-server.js';
import { toReinsPrincipal } from '../src/services/principal.js';
import { fakeNutrition } from './assistant-helpers.js';
import { BLAMES_DATA } from './family-questions.js';
import { describeEachBackend, type Harness } from './harness.js';

/*
 * Issue 19: "a step limit is reported as a limit (status and text), never as missing data".
 * `kitchen-plan` ended `success` when the step limit left a plan step undone (a step failed,
 * and no model step was left for the re-plan), and every stop notice was English, whatever
 * the question's language.
 */

/** The nutrition server refusing the name (as `mcpNutritionLookup` does): INVALID_PARAMETER, re-plannable. */
const refusing: NutritionLookup = () =>
  Promise.reject(new ToolError('INVALID_PARAMETER', 'the nutrition server refuses this food name'));

async function ask(
  h: Harness,
  kind: 'kitchen' | 'kitchen-plan',
  query: string,
  options: { model?: Model; nutrition?: NutritionLookup; limits?: Partial<RunLimits> } = {},
) {
  const agent = kitchenAgent(h.services, {
    model: options.model ?? kitchenDemoModel({ now: () => h.clock.now }),
    nutrition: options.nutrition ?? fakeNutrition().lookup,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const input = { ...agent, query, principal: toReinsPrincipal(await h.principal('xiaojia')) };
  const run = kind === 'kitchen' ? runAgent(input) : runPlanAgent(input);
  const record = await run.result;
  const observed = run.events.flatMap((e) =>
    e.type === 'step' && e.phase === 'observe' ? [(e as ObserveStep).observation.tool] : [],
  );
  const message = run.events.find((e): e is MessageEvent => e.type === 'message');
  const reply = message?.text ?? '';
  return { record, observed, reply, data: message?.data as KitchenAnswer | undefined };
}

// One step at a time: the failing nutrition lookup comes before the fridge reads, which wait for it.
const oneAtATime = { maxSteps: 2, toolConcurrency: 1 };

describeEachBackend(
  'kitchen-plan at its step limit, and the stop notice in the question’s language (issue 19)',
  (harness) => {
    it('demo model: steps left undone by the step limit end stopped (max_steps), the answer saying so in Chinese', async () => {
      const h = harness();
      const zh = await ask(h, 'kitchen-plan', '100克鸡蛋的热量是多少？顺便看看冰箱里有什么快过期了', {
        nutrition: refusing,
        limits: oneAtATime,
      });
      const why = zh.reply;
      expect(zh.observed, why).not.toContain('fridge_items'); // left for the re-plan that had no room
      expect(zh.record.status, why).toBe('stopped');
      expect(zh.record.stop_reason, why).toBe('max_steps');
      expect(zh.reply, why).toContain('提前停止：到了步数上限（2 步），没来得及查冰箱、口味与过敏、菜谱');
      expect(zh.reply, why).not.toContain('Stopped');
      for (const blame of BLAMES_DATA) expect(zh.reply, why).not.toContain(blame);
    });

    it('demo model, English: the same limit in English, naming what was not looked up as the pages do', async () => {
      const h = harness();
      const en = await ask(
        h,
        'kitchen-plan',
        'How many calories in 100 g of egg? Also, what is expiring soon?',
        {
          nutrition: refusing,
          limits: oneAtATime,
        },
      );
      expect(en.record.status, en.reply).toBe('stopped');
      expect(en.record.stop_reason).toBe('max_steps');
      expect(en.reply).toContain(
        'Stopped early: the step limit (2 model steps) came before the fridge, allergies and preferences, recipes could be looked up',
      );
      expect(en.reply).not.toContain('提前停止');
      for (const blame of BLAMES_DATA) expect(en.reply).not.toContain(blame);
    });

    it('script model: the model’s answer and its data stay; the code adds the limit; the status is the limit', async () => {
      const h = harness();
      const answer: KitchenAnswer = { reply: '鸡蛋的营养这次没查到。', cards: [] };
      const model = scriptModel([
        JSON.stringify({
          thought: 'two reads',
          steps: [
            { id: 's1', action: 'nutrition_lookup', input: { food: '鸡蛋' }, dependsOn: [] },
            { id: 's2', action: 'fridge_items', input: {}, dependsOn: [] },
          ],
        }),
        JSON.stringify({ thought: 'answering', final: answer }),
      ]);
      const run = await ask(h, 'kitchen-plan', '鸡蛋的热量？冰箱里有什么？', {
        model,
        nutrition: refusing,
        limits: oneAtATime,
      });
      model.assertComplete();
      expect(run.observed).toEqual(['nutrition_lookup']);
      expect(run.record).toMatchObject({ status: 'stopped', stop_reason: 'max_steps', intent: 'answer' });
      expect(run.reply.startsWith('鸡蛋的营养这次没查到。')).toBe(true);
      expect(run.reply).toContain('没来得及查冰箱');
      // The cards' data is the model's answer as finalized; the notice is in the message text only.
      expect(run.data?.reply).toContain('鸡蛋的营养这次没查到。');
      expect(run.data?.reply).not.toContain('提前停止');
    });

    it('nothing left undone: kitchen-plan at its smallest limit (maxSteps 2) still succeeds', async () => {
      const h = harness();
      const whole = await ask(h, 'kitchen-plan', '冰箱里有什么快过期了？', { limits: { maxSteps: 2 } });
      expect(whole.record.status, whole.reply).toBe('success');
      expect(whole.reply).not.toContain('提前停止');
    });

    it('kitchen (ReAct) at maxSteps 1: a Chinese question gets the Chinese limit notice, an English one the English', async () => {
      const h = harness();
      const zh = await ask(h, 'kitchen', '冰箱里有什么快过期了？', { limits: { maxSteps: 1 } });
      expect(zh.record).toMatchObject({ status: 'stopped', stop_reason: 'max_steps', intent: 'notice' });
      expect(zh.reply).toBe(
        '已停止：到了步数上限（1 步），还没得出回答。这不是家里缺数据；可以把问题拆开，一次问一件事。',
      );
      const en = await ask(h, 'kitchen', 'What is expiring soon?', { limits: { maxSteps: 1 } });
      expect(en.record).toMatchObject({ status: 'stopped', stop_reason: 'max_steps' });
      expect(en.reply).toBe('Stopped: the step limit (1 model steps) was reached before a final answer.');
    });

    it('over HTTP too: the kitchen server’s agents word their stops in the question’s language', async () => {
      const h = harness();
      const server = createKitchenServer({
        services: h.services,
        model: kitchenDemoModel({ now: () => h.clock.now }),
        nutrition: () => Promise.resolve(null),
        logger: pino({ level: 'silent' }),
      });
      const token = await h.login('xiaojia');
      const post = async (input: string) => {
        const response = await server.app.request('/v1/runs', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ agent: 'kitchen', input, maxSteps: 1 }),
        });
        const body = (await response.json()) as {
          record: { status: string; stop_reason?: string; final_answer: string };
        };
        return body.record;
      };
      try {
        const zh = await post('今晚能做什么菜？');
        expect(zh).toMatchObject({ status: 'stopped', stop_reason: 'max_steps' });
        expect(zh.final_answer).toContain('已停止：到了步数上限（1 步）');
        const en = await post('What can I cook tonight?');
        expect(en.final_answer).toContain('Stopped: the step limit (1 model steps)');
      } finally {
        await server.close();
      }
    });
  },
  'pglite',
);
