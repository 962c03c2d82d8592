import { describe, expect, it } from 'vitest';
import { runPlanAgent, type ObserveStep, type StopFacts } from 'reins';
import { scriptModel } from 'reins/testing';
import { final } from '../helpers.js';
import { claimsTools, plan, step } from './plan-tools.js';

/*
 * Issue 19: a plan step skipped because the step limit left no room for a re-plan ended the
 * run `success`, as if the answer were whole. It is a limit: the run answers from what ran,
 * ends `stopped` / `max_steps`, and the answer says which steps did not run.
 */

// s1 fails with INVALID_PARAMETER (a bad hospital code); one step at a time, so s2 is left for the re-plan.
const failingFirst = plan([
  step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'xiehe' }),
  step('s2', 'find_policy', { insured: '张三' }),
]);

describe('a plan step left undone by the step limit', () => {
  it('is reported as the limit: answered from what ran, stopped (max_steps), the steps not run named', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([failingFirst, final('张三的病历没有查到。')]);
    const run = runPlanAgent({ query: 'sync', model, tools, limits: { maxSteps: 2, toolConcurrency: 1 } });
    const record = await run.result;
    model.assertComplete();
    expect(calls.map((c) => c.tool)).toEqual(['query_medical_record']); // s2 never ran
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'max_steps', intent: 'answer' });
    expect(record.final_answer).toBe(
      '张三的病历没有查到。\n\nStopped early: the step limit (2 model steps) left no room to re-plan, so 1 step(s) did not run (find_policy); the answer above uses only what did run.',
    );
    // The responder was told that s2 did not run, and why.
    const responder = model.calls[1]?.messages.map((m) => m.content).join('\n') ?? '';
    expect(responder).toContain('"status":"skipped","reason":"not run: the step limit (2 model steps)');
  });

  it('with room for the re-plan, the run re-plans and succeeds (the limit was not reached)', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([
      failingFirst,
      plan([step('s3', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'BJXH001' })]),
      final('done'),
    ]);
    const run = runPlanAgent({ query: 'sync', model, tools, limits: { maxSteps: 3, toolConcurrency: 1 } });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(calls.map((c) => c.tool)).toEqual(['query_medical_record', 'query_medical_record']);
  });

  it('re-plans used up (not a limit of steps): success, the answer told which steps did not run', async () => {
    const { tools } = claimsTools();
    const model = scriptModel([failingFirst, final('partly')]);
    const run = runPlanAgent({ query: 'sync', model, tools, maxReplans: 0, limits: { toolConcurrency: 1 } });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'success', final_answer: 'partly' });
    const responder = model.calls[1]?.messages.map((m) => m.content).join('\n') ?? '';
    expect(responder).toContain('not run: step s1 failed and the re-plans allowed (0) are used up');
  });

  it('the app words the notice (stopNotice): it gets the reason, the limits, the question and the steps not run', async () => {
    const { tools } = claimsTools();
    const seen: StopFacts[] = [];
    const model = scriptModel([failingFirst, final('张三的病历没有查到。')]);
    const run = runPlanAgent({
      query: '同步张三的病历',
      model,
      tools,
      limits: { maxSteps: 2, toolConcurrency: 1 },
      stopNotice: (stop) => {
        seen.push(stop);
        return `提前停止：到了步数上限（${stop.limits.maxSteps} 步）。`;
      },
    });
    const record = await run.result;
    expect(record.final_answer).toBe('张三的病历没有查到。\n\n提前停止：到了步数上限（2 步）。');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ reason: 'max_steps', query: '同步张三的病历', notRun: ['find_policy'] });
    expect(seen[0]?.text).toContain('Stopped early: the step limit (2 model steps)');
    const observed = run.events.filter((e): e is ObserveStep => e.type === 'step' && e.phase === 'observe');
    expect(observed.map((o) => o.observation.error?.code)).toEqual(['INVALID_PARAMETER']);
  });
});
