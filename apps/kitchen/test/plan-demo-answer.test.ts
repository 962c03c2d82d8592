import { expect, it } from 'vitest';
import { runPlanAgent } from 'reins';
import { kitchenAgent } from '../src/assistant/agent.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { toReinsPrincipal } from '../src/services/principal.js';
import { fakeNutrition } from './assistant-helpers.js';
import { describeEachBackend } from './harness.js';

describeEachBackend('kitchen-plan with the demo model: its own question, answered', (harness) => {
  it('"你好" asks what to look up; the answer "冰箱里有什么快过期了？" is what the re-plan looks up', async () => {
    const h = harness();
    const agent = kitchenAgent(h.services, {
      model: kitchenDemoModel({ now: () => h.clock.now }),
      nutrition: fakeNutrition().lookup,
    });
    const run = runPlanAgent({
      query: '你好',
      model: agent.model,
      tools: agent.tools,
      limits: agent.limits,
      instructions: agent.instructions,
      answer: agent.answer,
      principal: toReinsPrincipal(await h.principal('xiaojia')),
    });
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_input');
    const question = run.pendingQuestion;
    expect(question?.question).toContain('想查什么');
    run.answer({ questionId: question?.questionId ?? '', value: '冰箱里有什么快过期了？' });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer, record.final_answer).toContain('嫩豆腐'); // an item of 小贾家 that expires soon
  });
});
