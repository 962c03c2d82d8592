import { describe, expect, it } from 'vitest';
import { runPlanAgent } from 'reins';
import { scriptModel } from 'reins/testing';
import { final } from '../helpers.js';
import { claimsTools, plan, step } from './plan-tools.js';

// The executor leaves a re-plan's skipped steps out of the outcomes (the next version says what
// happens to them); when that version was invalid and no re-plan was left, the responder never
// heard of them and the answer could look whole.
describe('a re-plan after INVALID_PARAMETER that is itself invalid', () => {
  it('still tells the responder which steps did not run (as skipped, with the reason)', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([
      plan([
        step('s1', 'find_policy', { insured: '张三' }),
        step('s2', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'bad' }, ['s1']),
        step('s3', 'send_policy', { policy_no: { $ref: 's1.output.policy_no' }, to: '李四' }, ['s2']),
      ]),
      // The re-plan names an action that does not exist: invalid, and the one re-plan is used up.
      plan([step('r1', 'no_such_action', {})]),
      final('Found policy P2024001.'),
    ]);
    const run = runPlanAgent({ query: '查张三的保单、住院记录，并发给李四', model, tools });
    const record = await run.result;
    expect(calls.map((c) => c.tool)).toEqual(['find_policy', 'query_medical_record']);
    expect(model.calls).toHaveLength(3);
    const responderPrompt = (model.calls[2]?.messages ?? []).map((m) => m.content).join('\n');
    // s1 ran and s2 failed: both are there …
    expect(responderPrompt).toContain('find_policy');
    expect(responderPrompt).toContain('query_medical_record');
    // … but send_policy (s3) never ran: the answer must be able to say so.
    expect(responderPrompt).toContain('send_policy');
    expect(responderPrompt).toContain(
      'Observation (tool send_policy, act s3): {"status":"skipped","reason":"its dependency s2 did not succeed"}',
    );
    expect(record.status).toBe('success');
  });

  it('a step left for the re-plan is there as not run, and why', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([
      plan([
        step('s1', 'find_policy', { insured: '张三' }),
        step('s2', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'bad' }, ['s1']),
        // Ready with s2, one call at a time: s2's INVALID_PARAMETER stops new starts first, and
        // s3 is left for the re-plan.
        step('s3', 'find_policy', { insured: '李四' }, ['s1']),
      ]),
      plan([step('r1', 'no_such_action', {})]),
      final('Found policy P2024001.'),
    ]);
    const run = runPlanAgent({
      query: '查张三和李四的保单、张三的住院记录',
      model,
      tools,
      limits: { toolConcurrency: 1 },
    });
    const record = await run.result;
    expect(calls.map((c) => c.tool)).toEqual(['find_policy', 'query_medical_record']);
    const responderPrompt = (model.calls[2]?.messages ?? []).map((m) => m.content).join('\n');
    expect(responderPrompt).toMatch(
      /Observation \(tool find_policy, act s3\): \{"status":"skipped","reason":"not run: the re-plan was still invalid \(/,
    );
    expect(record.status).toBe('success');
  });
});
