import { describe, expect, it } from 'vitest';
import {
  runAgent,
  runPlanAgent,
  type ApprovalEvent,
  type ClarifyEvent,
  type RunEvent,
  type RunRecord,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { claimsTools, hospitalCodes, plan, step } from '../plan/plan-tools.js';
import { act, countingTools, final, recordingSink, stepModel } from './fixtures.js';

const owner = { id: 'user-1' };

describe('a paused run rebuilt after a restart is answered and completes', () => {
  it('an approval pause: rebuilt from its log, approved, the tool runs exactly once', async () => {
    const first = countingTools();
    const { sink, stored } = recordingSink();
    const orderNeedingApproval = first.tools.map((t) =>
      t.name === 'place_order' ? { ...t, needsApproval: true } : t,
    );
    const script = [act('place_order', { item: 'milk' }), final('ordered milk')];
    const run = runAgent({
      query: 'order milk',
      model: stepModel(script),
      tools: orderNeedingApproval,
      principal: owner,
      runId: 'r-approval',
      durable: { sink },
    });
    expect((await run.result).status).toBe('awaiting_approval');
    expect(await run.persisted()).toBe(true);
    // The process dies here: only the stored log is left.
    const history = structuredClone(stored);

    const second = countingTools();
    const tools = second.tools.map((t) => (t.name === 'place_order' ? { ...t, needsApproval: true } : t));
    const model = stepModel(script);
    const rebuilt = runAgent({
      query: 'order milk',
      model,
      tools,
      principal: owner,
      runId: 'r-approval',
      durable: { sink },
      history,
    });
    const paused = await rebuilt.result;
    expect(paused.status).toBe('awaiting_approval');
    expect(model.steps).toEqual([]); // nothing asked again
    const approval = history.find((e): e is ApprovalEvent => e.type === 'approval') as ApprovalEvent;
    expect(rebuilt.pendingApproval).toMatchObject({
      actId: approval.actId,
      inputHash: approval.inputHash,
      expiresAt: approval.expiresAt,
    });
    // Someone else's approval is still refused after the restart.
    expect(
      rebuilt.approve({
        by: { id: 'mallory' },
        actId: approval.actId,
        inputHash: approval.inputHash,
        approve: true,
      }),
    ).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
    expect(
      rebuilt.approve({ by: owner, actId: approval.actId, inputHash: approval.inputHash, approve: true }),
    ).toMatchObject({ ok: true });
    expect(await rebuilt.persisted()).toBe(true);
    const done = await rebuilt.result;
    expect(done.status).toBe('success');
    expect(done.final_answer).toBe('ordered milk');
    expect(first.total('place_order') + second.total('place_order')).toBe(1);
    expect(stored.filter((e) => e.type === 'resume')).toMatchObject([
      { actId: approval.actId, outcome: { kind: 'approved', by: 'user-1' } },
    ]);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i));
  });

  it('an approval answered before the crash is replayed, not asked again; the interrupted act then counts as started', async () => {
    const first = countingTools();
    const { sink, stored } = recordingSink();
    const tools = first.tools.map((t) => (t.name === 'lookup' ? { ...t, needsApproval: true } : t));
    const script = [act('lookup', { q: 'x' }), final('done')];
    const run = runAgent({
      query: 'q',
      model: stepModel(script),
      tools,
      principal: owner,
      runId: 'r2',
      durable: { sink },
    });
    await run.result;
    const approval = run.events.find((e): e is ApprovalEvent => e.type === 'approval') as ApprovalEvent;
    run.approve({ by: owner, actId: approval.actId, inputHash: approval.inputHash, approve: true });
    await run.result;
    // Crash right after the resume event: the read-only lookup may have started; it runs again, no new approval.
    const cut = stored.findIndex((e) => e.type === 'resume') + 1;
    const history = stored.slice(0, cut);
    const second = countingTools();
    const tools2 = second.tools.map((t) => (t.name === 'lookup' ? { ...t, needsApproval: true } : t));
    const rebuilt = runAgent({
      query: 'q',
      model: stepModel(script),
      tools: tools2,
      principal: owner,
      runId: 'r2',
      history,
      durable: recordingSink(),
    });
    const record = await rebuilt.result;
    expect(record.status).toBe('success');
    expect(second.total('lookup')).toBe(1);
    expect(rebuilt.events.filter((e) => e.type === 'approval')).toHaveLength(1);
  });

  it('a ReAct question pause: rebuilt, answered, completes with the answer in its history', async () => {
    const { sink, stored } = recordingSink();
    const script = [JSON.stringify({ thought: 'need the city', ask: 'Which city?' }), final('Beijing it is')];
    const run = runAgent({
      query: 'weather?',
      model: stepModel(script),
      tools: [],
      principal: owner,
      runId: 'r3',
      clarify: {},
      durable: { sink },
    });
    expect((await run.result).status).toBe('awaiting_input');
    const history = structuredClone(stored);
    const model = stepModel(script);
    const rebuilt = runAgent({
      query: 'weather?',
      model,
      tools: [],
      principal: owner,
      runId: 'r3',
      clarify: {},
      durable: { sink },
      history,
    });
    expect((await rebuilt.result).status).toBe('awaiting_input');
    const question = history.find((e): e is ClarifyEvent => e.type === 'clarify') as ClarifyEvent;
    expect(rebuilt.pendingQuestion?.questionId).toBe(question.questionId);
    expect(rebuilt.answer({ questionId: question.questionId, value: 'Beijing', by: owner })).toEqual({
      ok: true,
      questionId: question.questionId,
    });
    const record = await rebuilt.result;
    expect(record.status).toBe('success');
    expect(model.steps).toEqual([2]);
  });

  it('a plan frozen on a question survives: rebuilt, answered, the patched plan runs', async () => {
    const { tools, calls } = claimsTools();
    const replies = [
      plan([step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '协和' })]),
      final('2 stays synced'),
    ];
    const { sink, stored } = recordingSink();
    const query = '把张三上个月在协和医院的住院记录同步到理赔系统';
    const run = runPlanAgent({
      query,
      model: scriptModel(replies),
      tools,
      principal: owner,
      validators: [hospitalCodes],
      runId: 'p1',
      durable: { sink },
    });
    expect((await run.result).status).toBe('awaiting_input');
    await run.persisted();
    const history = structuredClone(stored);
    const again = claimsTools();
    const model = scriptModel(replies.slice(1)); // only the answer step is left to ask
    const rebuilt = runPlanAgent({
      query,
      model,
      tools: again.tools,
      principal: owner,
      validators: [hospitalCodes],
      runId: 'p1',
      durable: { sink },
      history,
    });
    expect((await rebuilt.result).status).toBe('awaiting_input');
    const question = rebuilt.pendingQuestion;
    expect(question?.candidates.map((c) => c.value)).toEqual(['BJXH001', 'WHXH001', 'FZXH001']);
    rebuilt.answer({ questionId: question?.questionId ?? '', value: 'WHXH001' });
    const record = await rebuilt.result;
    expect(record.status).toBe('success');
    expect(calls).toEqual([]);
    expect(again.calls.map((c) => c.input)).toEqual([{ patient_id: 'zhangsan', hospital_code: 'WHXH001' }]);
    model.assertComplete();
  });
});

describe('a plan run rebuilt at any crash point', () => {
  it('runs each completed step once in all, repeats only interrupted read-only steps, ends like the original', async () => {
    const script = [
      plan([
        step('s1', 'lookup', { q: 'a' }),
        step('s2', 'lookup', { q: 'b' }),
        step('s3', 'place_order', { item: 'eggs' }, ['s1']),
      ]),
      final('ordered'),
    ];
    const first = countingTools();
    const { sink, stored: log } = recordingSink();
    const original = runPlanAgent({
      query: 'buy',
      model: stepModel(script),
      tools: first.tools,
      runId: 'p2',
      durable: { sink },
    });
    expect((await original.result).status).toBe('success');
    for (let cut = 1; cut < log.length; cut++) {
      const history: RunEvent[] = log
        .slice(0, cut)
        .filter((e) => !(e.type === 'step' && e.phase === 'progress') || true);
      const counted = countingTools();
      const rebuilt = runPlanAgent({
        query: 'buy',
        model: stepModel(script),
        tools: counted.tools,
        runId: 'p2',
        history,
        durable: recordingSink(),
      });
      const record = await rebuilt.result;
      const orderAct = history.find(
        (e) => e.type === 'step' && e.phase === 'act' && e.tool === 'place_order',
      );
      const orderObserved =
        orderAct !== undefined &&
        history.some(
          (e) =>
            e.type === 'step' && e.phase === 'observe' && e.actId === (orderAct as { actId: string }).actId,
        );
      if (orderAct !== undefined && !orderObserved) {
        expect(record.stop_reason, `cut ${cut}`).toBe('outcome_unknown');
        expect(counted.total('place_order')).toBe(0);
        continue;
      }
      expect(record.status, `cut ${cut}`).toBe('success');
      expect(counted.total('place_order'), `cut ${cut}`).toBe(orderAct === undefined ? 1 : 0);
      const lookupsDone = history.filter(
        (e) => e.type === 'step' && e.phase === 'observe' && e.observation.tool === 'lookup',
      ).length;
      expect(counted.total('lookup'), `cut ${cut}`).toBe(2 - lookupsDone);
      expect(rebuilt.events.map((e) => e.seq)).toEqual(rebuilt.events.map((_, i) => i));
    }
  });
});

/** `promise`, or `'hung'` after `ms`. */
const within = <T>(promise: Promise<T>, ms = 1_000): Promise<T | 'hung'> =>
  Promise.race([promise, new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms))]);

const needingApproval = (tools: ReturnType<typeof countingTools>['tools']) =>
  tools.map((t) => (t.name === 'place_order' ? { ...t, needsApproval: true } : t));

describe('the result of a rebuilt run', () => {
  it('result of a run rebuilt past an answered pause is the record of its next pause (it does not wait for the end)', async () => {
    const first = countingTools();
    const { sink, stored } = recordingSink();
    const script = [
      act('place_order', { item: 'milk' }),
      act('place_order', { item: 'eggs' }),
      final('ordered milk and eggs'),
    ];
    const run = runAgent({
      query: 'order milk and eggs',
      model: stepModel(script),
      tools: needingApproval(first.tools),
      principal: owner,
      runId: 'r-twice',
      durable: { sink },
    });
    expect((await run.result).status).toBe('awaiting_approval');
    const approval = run.pendingApproval;
    run.approve({
      by: owner,
      actId: approval?.actId ?? '',
      inputHash: approval?.inputHash ?? '',
      approve: true,
    });
    expect((await run.result).status).toBe('awaiting_approval'); // the second pause
    expect(await run.persisted()).toBe(true);
    // Crash after the first order was observed, before the second model step was stored.
    const observed = stored.findIndex((e) => e.type === 'step' && e.phase === 'observe');
    const history: RunEvent[] = structuredClone(stored.slice(0, observed + 1));
    const again = countingTools();
    const rebuilt = runAgent({
      query: 'order milk and eggs',
      model: stepModel(script),
      tools: needingApproval(again.tools),
      principal: owner,
      runId: 'r-twice',
      durable: recordingSink(),
      history,
    });
    const record = await within(rebuilt.result);
    expect(record).not.toBe('hung');
    expect((record as RunRecord).status).toBe('awaiting_approval');
    expect(rebuilt.pendingApproval?.input).toEqual({ item: 'eggs' });
    expect(again.total('place_order')).toBe(0);
    const second = rebuilt.pendingApproval;
    rebuilt.approve({
      by: owner,
      actId: second?.actId ?? '',
      inputHash: second?.inputHash ?? '',
      approve: true,
    });
    expect((await within(rebuilt.result)) as RunRecord).toMatchObject({ status: 'success' });
    expect(rebuilt.events.filter((e): e is ApprovalEvent => e.type === 'approval')).toHaveLength(2);
  });
});
