import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  runPlanAgent,
  ToolError,
  type ActStep,
  type ObserveStep,
  type PlanStepEvent,
  type RunEvent,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { final } from '../helpers.js';
import { claimsTools, plan, step } from './plan-tools.js';

/**
 * `slow_a` and `slow_b` each wait for the other to start (or `waitMs`): run one after the
 * other, `most` stays 1. `sum` adds.
 */
function pairTools(waitMs: number) {
  const seen = { most: 0, active: 0, started: 0 };
  let bothStarted: () => void = () => undefined;
  const barrier = new Promise<void>((resolve) => (bothStarted = resolve));
  const slow = (name: string) =>
    defineTool({
      name,
      description: name,
      input: z.object({ n: z.number() }),
      output: z.object({ n: z.number() }),
      readOnly: true,
      run: async ({ n }) => {
        seen.active++;
        seen.most = Math.max(seen.most, seen.active);
        if (++seen.started === 2) bothStarted();
        await Promise.race([barrier, new Promise((r) => setTimeout(r, waitMs))]);
        seen.active--;
        return { n };
      },
    });
  const sum = defineTool({
    name: 'sum',
    description: 'adds',
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ total: z.number() }),
    readOnly: true,
    run: ({ a, b }) => ({ total: a + b }),
  });
  return { tools: [slow('slow_a'), slow('slow_b'), sum], seen };
}

const plans = (events: readonly RunEvent[]) =>
  events.filter((e): e is PlanStepEvent => e.type === 'step' && e.phase === 'plan');
const acts = (events: readonly RunEvent[]) =>
  events.filter((e): e is ActStep => e.type === 'step' && e.phase === 'act');
const observes = (events: readonly RunEvent[]) =>
  events.filter((e): e is ObserveStep => e.type === 'step' && e.phase === 'observe');

describe('plan-and-execute runs', () => {
  it('plans, validates, runs in dependency order with references resolved, and answers', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([
      plan([
        step('s1', 'find_policy', { insured: '张三' }),
        step('s2', 'send_policy', { policy_no: { $ref: 's1.output.policy_no' }, to: '李四' }, ['s1']),
      ]),
      final('Sent policy P2024001 to 李四.'),
    ]);
    const run = runPlanAgent({ query: '把张三的保单发给李四', model, tools });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('Sent policy P2024001 to 李四.');
    expect(record.model_steps).toBe(2);
    model.assertComplete();
    expect(calls.map((c) => [c.tool, c.input])).toEqual([
      ['find_policy', { insured: '张三' }],
      ['send_policy', { policy_no: 'P2024001', to: '李四' }],
    ]);
    const [v1] = plans(run.events);
    expect(v1).toMatchObject({
      version: 1,
      reason: 'initial',
      index: 1,
      validation: { ok: true, problems: [] },
    });
    expect(v1?.plan.steps.map((s) => s.id)).toEqual(['s1', 's2']);
    expect(v1?.raw).toContain('"steps"');
    // Act / observe events name their plan step; the act shows the resolved input.
    expect(acts(run.events).map((a) => [a.planStepId, a.input])).toEqual([
      ['s1', { insured: '张三' }],
      ['s2', { policy_no: 'P2024001', to: '李四' }],
    ]);
    expect(observes(run.events).map((o) => [o.planStepId, o.observation.status])).toEqual([
      ['s1', 'ok'],
      ['s2', 'ok'],
    ]);
    // The record shows the plan version among the steps, and the step ids.
    expect(record.steps.map((s) => s.phase)).toEqual(['plan', 'act', 'observe', 'act', 'observe', 'reason']);
    expect(record.steps[0]?.detail).toMatchObject({ version: 1, reason: 'initial' });
    expect(record.steps[1]?.detail).toMatchObject({ plan_step_id: 's1' });
    // The responder saw the results as observations.
    expect(model.calls[1]?.messages.some((m) => m.content.includes('P2024001'))).toBe(true);
    // Nodes are traced (live events).
    const nodes = run.events.flatMap((e) =>
      e.type === 'step' && e.phase === 'progress' && e.source === 'node' ? [e.node] : [],
    );
    expect(nodes.filter((n) => n !== 'router')).toEqual(['planner', 'validator', 'executor', 'responder']);
  });

  it('runs two independent steps concurrently and the dependent one after both', async () => {
    const { tools, seen } = pairTools(1_000);
    const model = scriptModel([
      plan([
        step('a', 'slow_a', { n: 1 }),
        step('b', 'slow_b', { n: 2 }),
        step('c', 'sum', { a: { $ref: 'a.output.n' }, b: { $ref: 'b.output.n' } }, ['a', 'b']),
      ]),
      final('3'),
    ]);
    const run = runPlanAgent({ query: 'add', model, tools });
    expect((await run.result).status).toBe('success');
    expect(seen.most).toBe(2);
    const seqOf = (phase: 'act' | 'observe', id: string) =>
      run.events.find((e) => e.type === 'step' && e.phase === phase && e.planStepId === id)?.seq ?? -1;
    expect(seqOf('act', 'b')).toBeLessThan(seqOf('observe', 'a'));
    expect(seqOf('act', 'c')).toBeGreaterThan(seqOf('observe', 'a'));
    expect(seqOf('act', 'c')).toBeGreaterThan(seqOf('observe', 'b'));
    expect(acts(run.events).find((a) => a.planStepId === 'c')?.input).toEqual({ a: 1, b: 2 });
  });

  it('independent steps are bounded by toolConcurrency', async () => {
    const { tools, seen } = pairTools(30);
    const model = scriptModel([
      plan([step('a', 'slow_a', { n: 1 }), step('b', 'slow_b', { n: 2 })]),
      final('ok'),
    ]);
    const run = runPlanAgent({ query: 'x', model, tools, limits: { toolConcurrency: 1 } });
    expect((await run.result).status).toBe('success');
    expect(seen.most).toBe(1);
  });

  it('re-plans the remaining steps once after a step fails with INVALID_PARAMETER', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([
      plan([
        step('s1', 'find_policy', { insured: '张三' }),
        step('s2', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'xiehe' }),
        step('s3', 'send_policy', { policy_no: { $ref: 's1.output.policy_no' }, to: '李四' }, ['s1', 's2']),
      ]),
      plan([
        step('s4', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'BJXH001' }),
        step('s5', 'send_policy', { policy_no: { $ref: 's1.output.policy_no' }, to: '李四' }, ['s1', 's4']),
      ]),
      final('done'),
    ]);
    const run = runPlanAgent({ query: 'sync and send', model, tools });
    const record = await run.result;
    expect(record.status).toBe('success');
    model.assertComplete();
    const versions = plans(run.events);
    expect(versions.map((v) => [v.version, v.reason, v.validation.ok])).toEqual([
      [1, 'initial', true],
      [2, 'replan', true],
    ]);
    // The planner was told what failed and what is done.
    const replanPrompt = model.calls[1]?.messages.map((m) => m.content).join('\n') ?? '';
    expect(replanPrompt).toContain('Step s2 (query_medical_record) failed: INVALID_PARAMETER');
    expect(replanPrompt).toContain('s1 (find_policy) done');
    // s3 never ran; s1 is not run again.
    expect(calls.map((c) => c.tool)).toEqual([
      'find_policy',
      'query_medical_record',
      'query_medical_record',
      'send_policy',
    ]);
    expect(acts(run.events).map((a) => a.planStepId)).toEqual(['s1', 's2', 's4', 's5']);
  });

  it('re-plans at most once: a second INVALID_PARAMETER goes to the answer, not to a third plan', async () => {
    const { tools } = claimsTools();
    const bad = (id: string) =>
      step(id, 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'xiehe' });
    const model = scriptModel([
      plan([bad('s1')]),
      plan([bad('s2')]),
      final('could not sync'),
      plan([bad('s3')]),
    ]);
    const run = runPlanAgent({ query: 'sync', model, tools });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('could not sync');
    expect(plans(run.events)).toHaveLength(2);
    expect(model.calls).toHaveLength(3);
  });

  it('an invalid plan is re-planned once, then the run stops saying why, having run nothing', async () => {
    const { tools, calls } = claimsTools();
    const cyclic = plan([
      step('s1', 'find_policy', { insured: 'a' }, ['s2']),
      step('s2', 'find_policy', { insured: 'b' }, ['s1']),
    ]);
    const model = scriptModel([cyclic, cyclic, final('never used')]);
    const run = runPlanAgent({ query: 'x', model, tools });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'invalid_plan', intent: 'notice' });
    expect(record.final_answer).toContain('cycle');
    expect(calls).toEqual([]);
    expect(plans(run.events).map((v) => [v.reason, v.validation.problems.map((p) => p.code)])).toEqual([
      ['initial', ['cycle']],
      ['replan', ['cycle']],
    ]);
    expect(model.calls).toHaveLength(2);
    // The re-plan prompt carried the problems.
    expect(model.calls[1]?.messages.at(-1)?.content).toContain('cycle');
  });

  it('a reply that is not a plan is kept raw, reported, and re-planned', async () => {
    const { tools } = claimsTools();
    const model = scriptModel([
      'I would first look up the policy.',
      plan([step('s1', 'find_policy', { insured: '张三' })]),
      final('ok'),
    ]);
    const run = runPlanAgent({ query: 'x', model, tools });
    expect((await run.result).status).toBe('success');
    const [v1, v2] = plans(run.events);
    expect(v1).toMatchObject({
      raw: 'I would first look up the policy.',
      plan: { steps: [] },
      validation: { ok: false },
    });
    expect(v1?.validation.problems[0]?.code).toBe('unparsed');
    expect(v2?.reason).toBe('replan');
  });

  it('a repaired plan is accepted (the central parser: one repair)', async () => {
    const { tools } = claimsTools();
    const model = scriptModel([
      "```json\n{'steps': [{'id': 's1', 'action': 'find_policy', 'input': {'insured': '张三'}, 'dependsOn': []},]}\n```",
      final('ok'),
    ]);
    const run = runPlanAgent({ query: 'x', model, tools });
    expect((await run.result).status).toBe('success');
    expect(plans(run.events)[0]?.validation.ok).toBe(true);
  });

  it('SERVICE_UNAVAILABLE takes the fallback path and the answer says it is degraded', async () => {
    const primary = defineTool({
      name: 'ocr',
      description: 'reads a document',
      input: z.object({ doc: z.string() }),
      output: z.object({ text: z.string() }),
      readOnly: true,
      policy: { retries: 0, breaker: false },
      fallback: { tool: 'basic_ocr', lost: 'tables are not recognized' },
      run: () => {
        throw new ToolError('SERVICE_UNAVAILABLE', 'busy');
      },
    });
    const backup = defineTool({
      name: 'basic_ocr',
      description: 'reads plain text',
      input: z.object({ doc: z.string() }),
      output: z.object({ text: z.string() }),
      readOnly: true,
      run: () => ({ text: 'P2024001' }),
    });
    const model = scriptModel([plan([step('s1', 'ocr', { doc: 'x' })]), final('P2024001 (degraded)')]);
    const run = runPlanAgent({ query: 'read', model, tools: [primary, backup] });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.degraded).toMatchObject([
      { tool: 'ocr', fallback: 'basic_ocr', lost: 'tables are not recognized' },
    ]);
    expect(observes(run.events)[0]?.observation).toMatchObject({
      status: 'ok',
      degraded: { fallback: 'basic_ocr' },
    });
  });

  it('a failed step skips its dependents; independent steps still run', async () => {
    const failing = defineTool({
      name: 'lookup',
      description: 'fails',
      input: z.object({}),
      output: z.object({ id: z.string() }),
      readOnly: true,
      run: () => {
        throw new ToolError('NOT_FOUND', 'nothing');
      },
    });
    const { tools, calls } = claimsTools();
    const model = scriptModel([
      plan([
        step('s1', 'lookup', {}),
        step('s2', 'send_policy', { policy_no: { $ref: 's1.output.id' }, to: 'x' }, ['s1']),
        step('s3', 'find_policy', { insured: '张三' }),
      ]),
      final('partly'),
    ]);
    const run = runPlanAgent({ query: 'x', model, tools: [...tools, failing] });
    expect((await run.result).status).toBe('success');
    expect(calls.map((c) => c.tool)).toEqual(['find_policy']);
    expect(model.calls[1]?.messages.map((m) => m.content).join('\n')).toContain('"status":"skipped"');
  });

  it('"send this policy to 李四" resolves "this" from the task state of the earlier run', async () => {
    const { tools, calls } = claimsTools();
    const first = runPlanAgent({
      query: '查张三的保单',
      model: scriptModel([plan([step('s1', 'find_policy', { insured: '张三' })]), final('P2024001')]),
      tools,
    });
    await first.result;
    expect(first.taskState.entries).toMatchObject([
      { action: 'find_policy', output: { policy_no: 'P2024001' } },
    ]);
    const model = scriptModel([
      plan([
        step('s1', 'send_policy', { policy_no: { $ref: 'task.find_policy.output.policy_no' }, to: '李四' }),
      ]),
      final('sent'),
    ]);
    const second = runPlanAgent({ query: '把这份保单发给李四', model, tools, taskState: first.taskState });
    expect((await second.result).status).toBe('success');
    expect(calls.at(-1)).toMatchObject({ tool: 'send_policy', input: { policy_no: 'P2024001', to: '李四' } });
    // The planner was shown the task state, not a chat history.
    expect(model.calls[0]?.messages.map((m) => m.content).join('\n')).toContain('Task state');
    expect(second.taskState.entries.map((e) => e.action)).toEqual(['find_policy', 'send_policy']);
  });

  it('cancel stops the plan: nothing starts afterwards', async () => {
    let release: () => void = () => undefined;
    const started: string[] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'waits',
      input: z.object({ n: z.number() }),
      output: z.object({ n: z.number() }),
      readOnly: true,
      run: ({ n }, ctx) =>
        new Promise((resolve, reject) => {
          started.push(String(n));
          release = () => resolve({ n });
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    });
    const model = scriptModel([
      plan([step('s1', 'slow', { n: 1 }), step('s2', 'slow', { n: 2 }, ['s1'])]),
      final('x'),
    ]);
    const run = runPlanAgent({ query: 'x', model, tools: [slow] });
    while (started.length === 0) await new Promise((r) => setTimeout(r, 5));
    run.cancel();
    release();
    const record = await run.result;
    expect(record.status).toBe('cancelled');
    expect(started).toEqual(['1']);
    expect(model.calls).toHaveLength(1);
  });

  it('refuses programmer mistakes at once', () => {
    const { tools } = claimsTools();
    expect(() =>
      runPlanAgent({ query: 'x', model: scriptModel([]), tools, limits: { maxSteps: 1 } }),
    ).toThrow(RangeError);
    expect(() => runPlanAgent({ query: 'x', model: scriptModel([]), tools, maxReplans: -1 })).toThrow(
      RangeError,
    );
  });
});
