import { describe, expect, it } from 'vitest';
import { runPlanAgent, type ClarifyEvent, type PlanStepEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { final, shape } from '../helpers.js';
import { claimsTools, hospitalCodes, plan, step } from './plan-tools.js';

const owner = { id: 'user-1' };

/** Waits until the paused run resumes by itself (its question expired). */
async function expired(run: { events: readonly RunEvent[] }): Promise<void> {
  const pauses = run.events.length;
  while (run.events.length === pauses) await new Promise((r) => setTimeout(r, 5));
}
const questions = (events: readonly RunEvent[]) =>
  events.filter((e): e is ClarifyEvent => e.type === 'clarify');
const plans = (events: readonly RunEvent[]) =>
  events.filter((e): e is PlanStepEvent => e.type === 'step' && e.phase === 'plan');

/** Seed 001: "sync 张三's stay at 协和 hospital" — 协和 is in Beijing, Wuhan and Fuzhou. */
function hospitalRun(
  options: { clarify?: Parameters<typeof runPlanAgent>[0]['clarify']; replies?: string[] } = {},
) {
  const { tools, calls } = claimsTools();
  const model = scriptModel(
    options.replies ?? [
      plan([step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '协和' })]),
      final('2 stays synced'),
    ],
  );
  const run = runPlanAgent({
    query: '把张三上个月在协和医院的住院记录同步到理赔系统',
    model,
    tools,
    principal: owner,
    validators: [hospitalCodes],
    ...(options.clarify === undefined ? {} : { clarify: options.clarify }),
  });
  return { run, model, calls };
}

describe('the clarification subflow (seed 001: 协和 → three hospitals)', () => {
  it('asks with the candidates, freezes the plan, and resumes from where it stopped on the answer', async () => {
    const { run, model, calls } = hospitalRun();
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_input');
    expect(shape(run.events).filter((s) => s !== 'step:progress')).toEqual([
      'start',
      'step:plan',
      'clarify',
      'done',
    ]);
    const [question] = questions(run.events);
    expect(question).toMatchObject({ stepId: 's1', field: 'hospital_code' });
    expect(question?.candidates).toEqual([
      { value: 'BJXH001', label: '北京协和医院' },
      { value: 'WHXH001', label: '武汉协和医院' },
      { value: 'FZXH001', label: '福州协和医院' },
    ]);
    expect(question?.question).toContain('协和');
    expect(paused).toMatchObject({
      intent: 'clarify',
      pending_question: { question_id: question?.questionId, step_id: 's1' },
    });
    expect(run.pendingQuestion?.questionId).toBe(question?.questionId);
    expect(calls).toEqual([]); // frozen: nothing ran
    expect(model.calls).toHaveLength(1);

    const from = run.events.length;
    expect(run.answer({ questionId: question?.questionId ?? '', value: 'WHXH001', by: owner })).toEqual({
      ok: true,
      questionId: question?.questionId,
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(calls.map((c) => c.input)).toEqual([{ patient_id: 'zhangsan', hospital_code: 'WHXH001' }]);
    // The same log goes on: a clarified plan version (made by code, no model call), then the steps.
    const resumed = run.events.slice(from);
    expect(resumed[0]).toMatchObject({
      type: 'resume',
      questionId: question?.questionId,
      outcome: { kind: 'answered', value: 'WHXH001' },
    });
    expect(resumed[1]?.type).toBe('step');
    const v2 = plans(run.events)[1];
    expect(v2).toMatchObject({ version: 2, reason: 'clarified', raw: '', validation: { ok: true } });
    expect(v2?.plan.steps[0]?.input).toEqual({ patient_id: 'zhangsan', hospital_code: 'WHXH001' });
    expect(model.calls).toHaveLength(2);
    model.assertComplete();
  });

  it('asks at most two questions: after the second unresolved one the run stops, saying why', async () => {
    const { run, calls } = hospitalRun();
    await run.result;
    const first = questions(run.events)[0];
    run.answer({ questionId: first?.questionId ?? '', value: '协和' }); // still ambiguous
    const again = await run.result;
    expect(again.status).toBe('awaiting_input');
    const second = questions(run.events)[1];
    expect(second?.questionId).not.toBe(first?.questionId);
    run.answer({ questionId: second?.questionId ?? '', value: '北京的那个协和' }); // still not a code
    const record = await run.result;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'unanswered', intent: 'notice' });
    expect(record.final_answer).toContain('2 question');
    expect(questions(run.events)).toHaveLength(2);
    expect(calls).toEqual([]);
    expect(plans(run.events).map((p) => p.reason)).toEqual(['initial', 'clarified', 'clarified']);
  });

  it('a question that times out uses the configured default (seed 001: 北京协和)', async () => {
    const { run, calls } = hospitalRun({ clarify: { timeoutMs: 30, onTimeout: { default: 'BJXH001' } } });
    expect((await run.result).status).toBe('awaiting_input');
    await expired(run);
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(calls.map((c) => c.input)).toEqual([{ patient_id: 'zhangsan', hospital_code: 'BJXH001' }]);
    const question = questions(run.events)[0];
    // Answered after it expired: told so (TIMEOUT, the server's 410), not that it never was.
    expect(run.answer({ questionId: question?.questionId ?? '', value: 'WHXH001' })).toMatchObject({
      ok: false,
      code: 'TIMEOUT',
    });
  });

  it('a question that times out without a default stops the run', async () => {
    const { run, calls } = hospitalRun({ clarify: { timeoutMs: 30, onTimeout: 'stop' } });
    await run.result;
    await expired(run);
    const record = await run.result;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'unanswered' });
    expect(record.final_answer).toContain('no answer came in time');
    expect(calls).toEqual([]);
  });

  it('refuses answers for another question, from another user, or blank; the question still waits', async () => {
    const { run } = hospitalRun();
    await run.result;
    const { questionId } = questions(run.events)[0] as ClarifyEvent;
    expect(run.answer({ questionId: 'other', value: 'BJXH001' })).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
    expect(run.answer({ questionId, value: 'BJXH001', by: { id: 'user-2' } })).toMatchObject({
      ok: false,
      code: 'PERMISSION_DENIED',
    });
    expect(run.answer({ questionId, value: '   ' })).toMatchObject({ ok: false, code: 'INVALID_PARAMETER' });
    expect(run.pendingQuestion?.questionId).toBe(questionId);
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
  });

  it("missing_info in the planner's structured reasoning becomes a question; the answer goes to the planner", async () => {
    const { tools, calls } = claimsTools();
    const reasoning = {
      reasoning: {
        current_goal: '获取用户的最新有效保单',
        known_facts: ['用户要查保单'],
        missing_info: ['被保险人姓名'],
        next_action: 'ask_clarification',
      },
    };
    const model = scriptModel([
      JSON.stringify(reasoning),
      plan([step('s1', 'find_policy', { insured: '张三' })]),
      final('P2024001'),
    ]);
    const run = runPlanAgent({ query: '查一下保单', model, tools });
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_input');
    const question = questions(run.events)[0];
    expect(question?.question).toContain('被保险人姓名');
    expect(question?.candidates).toEqual([]);
    expect(plans(run.events)).toEqual([]); // no plan was guessed
    run.answer({ questionId: question?.questionId ?? '', value: '张三' });
    expect((await run.result).status).toBe('success');
    expect(model.calls[1]?.messages.map((m) => m.content)).toContain(
      'Answer to "' + (question?.question ?? '') + '": 张三',
    );
    expect(plans(run.events)[0]?.reason).toBe('clarified');
    expect(calls.map((c) => c.input)).toEqual([{ insured: '张三' }]);
  });

  it('a missing required value is asked for and filled into the frozen plan', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([plan([step('s1', 'send_policy', { policy_no: 'P2024001' })]), final('sent')]);
    const run = runPlanAgent({ query: 'send policy P2024001', model, tools });
    await run.result;
    const question = questions(run.events)[0];
    expect(question).toMatchObject({ stepId: 's1', field: 'to', candidates: [] });
    run.answer({ questionId: question?.questionId ?? '', value: '李四' });
    expect((await run.result).status).toBe('success');
    expect(calls.map((c) => c.input)).toEqual([{ policy_no: 'P2024001', to: '李四' }]);
  });

  it('the deadline stands still while the user thinks', async () => {
    const { tools } = claimsTools();
    const model = scriptModel([
      plan([step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '协和' })]),
      final('ok'),
    ]);
    const run = runPlanAgent({
      query: 'x',
      model,
      tools,
      validators: [hospitalCodes],
      limits: { deadlineMs: 300, toolTimeoutMs: 50 },
    });
    await run.result;
    await new Promise((r) => setTimeout(r, 400)); // longer than the whole deadline
    const { questionId } = questions(run.events)[0] as ClarifyEvent;
    run.answer({ questionId, value: 'FZXH001' });
    const last = await run.result;
    expect(plans(run.events).map((p) => p.validation.ok)).toEqual([false, true]);
    expect(last.status).toBe('success');
  });
});
