import { describe, expect, it } from 'vitest';
import {
  formatValidator,
  isBankCardNumber,
  isChineseIdNumber,
  TaskState,
  validatePlan,
  type Plan,
  type PlanValidationContext,
} from 'reins';
import { claimsTools, hospitalCodes, step } from './plan-tools.js';

function ctx(overrides: Partial<PlanValidationContext> = {}): PlanValidationContext {
  const { tools } = claimsTools();
  return {
    registry: new Map(tools.map((t) => [t.name, t])),
    maxPlanSteps: 8,
    timeLeftMs: 60_000,
    defaultTimeoutMs: 15_000,
    taskState: new TaskState(),
    validators: [],
    ...overrides,
  };
}

const codes = (plan: Plan, c = ctx()) => validatePlan(plan, c).problems.map((p) => p.code);

describe('plan validation, before anything runs', () => {
  it('accepts a valid plan and orders it by dependencies', () => {
    const result = validatePlan(
      {
        steps: [
          step('s1', 'find_policy', { insured: '张三' }),
          step('s2', 'send_policy', { policy_no: { $ref: 's1.output.policy_no' }, to: '李四' }, ['s1']),
        ],
      },
      ctx(),
    );
    expect(result).toMatchObject({ ok: true, problems: [], order: ['s1', 's2'] });
  });

  it('rejects a cycle and names the steps in it', () => {
    const result = validatePlan(
      {
        steps: [
          step('s1', 'find_policy', { insured: 'a' }, ['s3']),
          step('s2', 'find_policy', { insured: 'b' }, ['s1']),
          step('s3', 'find_policy', { insured: 'c' }, ['s2']),
          step('s4', 'find_policy', { insured: 'd' }),
        ],
      },
      ctx(),
    );
    expect(result.ok).toBe(false);
    const cycle = result.problems.find((p) => p.code === 'cycle');
    expect(cycle?.steps).toEqual(['s1', 's2', 's3']);
    expect(cycle?.message).toContain('s1 → s2 → s3 → s1');
    expect(result.order).toBeUndefined();
    // The edges of the cycle are reported once, as the cycle, not again as order problems.
    expect(result.problems.map((p) => p.code)).toEqual(['cycle']);
  });

  it('a step depending on itself is a cycle of one', () => {
    const result = validatePlan({ steps: [step('s1', 'find_policy', { insured: 'a' }, ['s1'])] }, ctx());
    expect(result.problems).toMatchObject([{ code: 'cycle', steps: ['s1'] }]);
  });

  it('rejects a dependency on a later step, and on a step that does not exist', () => {
    expect(
      codes({
        steps: [
          step('s1', 'find_policy', { insured: 'a' }, ['s2', 's9']),
          step('s2', 'find_policy', { insured: 'b' }),
        ],
      }),
    ).toEqual(['unknown_dependency', 'dependency_order']);
  });

  it('rejects a dangling reference: a step the plan does not have, or a field its output does not have', () => {
    const result = validatePlan(
      {
        steps: [
          step('s1', 'find_policy', { insured: '张三' }),
          step('s2', 'send_policy', { policy_no: { $ref: 's7.output.policy_no' }, to: '李四' }, ['s1']),
          step('s3', 'send_policy', { policy_no: { $ref: 's1.output.policy_number' }, to: '李四' }, ['s1']),
        ],
      },
      ctx(),
    );
    expect(result.problems).toMatchObject([
      { code: 'dangling_ref', stepId: 's2', field: 'policy_no' },
      { code: 'dangling_ref', stepId: 's3', field: 'policy_no' },
    ]);
    expect(result.problems[0]?.message).toContain('s7');
    expect(result.problems[1]?.message).toContain('policy_number');
  });

  it('rejects a reference to a step that is not a dependency', () => {
    expect(
      codes({
        steps: [
          step('s1', 'find_policy', { insured: '张三' }),
          step('s2', 'send_policy', { policy_no: { $ref: 's1.output.policy_no' }, to: '李四' }),
        ],
      }),
    ).toEqual(['ref_not_dependency']);
  });

  it('checks every action and input against the tools; a missing required value can be asked for', () => {
    const result = validatePlan(
      {
        steps: [
          step('s1', 'book_flight', { to: 'PEK' }),
          step('s2', 'find_policy', { insured: '张三', tenant_id: 'other' }),
          step('s3', 'send_policy', { policy_no: 'P2024001' }),
          step('s4', 'send_policy', { policy_no: 'nope', to: 'x' }),
        ],
      },
      ctx(),
    );
    expect(result.problems.map((p) => [p.code, p.stepId])).toEqual([
      ['unknown_action', 's1'],
      ['invalid_input', 's2'],
      ['missing_value', 's3'],
      ['invalid_input', 's4'],
    ]);
    expect(result.problems[2]).toMatchObject({ field: 'to', ask: { candidates: [] } });
    expect(result.problems[1]?.ask).toBeUndefined();
  });

  it('holds the plan to the run budget: steps and the deadline', () => {
    const many = {
      steps: Array.from({ length: 4 }, (_, i) => step(`s${i + 1}`, 'find_policy', { insured: `p${i}` })),
    };
    expect(codes(many, ctx({ maxPlanSteps: 3 }))).toEqual(['too_many_steps']);
    const chain = {
      steps: [
        step('s1', 'find_policy', { insured: '张三' }),
        step('s2', 'send_policy', { policy_no: { $ref: 's1.output.policy_no' }, to: '李四' }, ['s1']),
      ],
    };
    // Two dependent steps at the default 15 s timeout each do not fit in 20 s.
    expect(codes(chain, ctx({ timeLeftMs: 20_000 }))).toEqual(['over_deadline']);
    expect(codes(chain, ctx({ timeLeftMs: 30_000 }))).toEqual([]);
  });

  it('task references resolve against earlier runs; one to nothing is dangling', () => {
    const taskState = new TaskState({
      entries: [
        { runId: 'r0', stepId: 's1', action: 'find_policy', output: { policy_no: 'P2024001' }, at: 0 },
      ],
    });
    const uses = (ref: string) => ({
      steps: [step('s1', 'send_policy', { policy_no: { $ref: ref }, to: '李四' })],
    });
    expect(codes(uses('task.find_policy.output.policy_no'), ctx({ taskState }))).toEqual([]);
    expect(codes(uses('task.find_policy.output.nothing'), ctx({ taskState }))).toEqual(['dangling_ref']);
    expect(codes(uses('task.find_claim.output.policy_no'), ctx({ taskState }))).toEqual(['dangling_ref']);
    expect(codes(uses('not a ref'), ctx({ taskState }))).toEqual(['dangling_ref']);
  });

  it('domain validators plug in per agent: 协和 is ambiguous between three hospitals', () => {
    const result = validatePlan(
      { steps: [step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '协和' })] },
      ctx({ validators: [hospitalCodes] }),
    );
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({
      code: 'ambiguous_value',
      stepId: 's1',
      field: 'hospital_code',
    });
    expect(result.problems[0]?.ask?.candidates.map((c) => c.value)).toEqual([
      'BJXH001',
      'WHXH001',
      'FZXH001',
    ]);
    const known = {
      steps: [step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: 'WHXH001' })],
    };
    expect(codes(known, ctx({ validators: [hospitalCodes] }))).toEqual([]);
    const unknown = {
      steps: [step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '同仁' })],
    };
    expect(validatePlan(unknown, ctx({ validators: [hospitalCodes] })).problems).toMatchObject([
      { code: 'invalid_value', ask: { candidates: [] } },
    ]);
  });

  it('format validators: ID numbers (checksum) and bank cards (Luhn)', () => {
    expect(isChineseIdNumber('11010519491231002X')).toBe(true);
    expect(isChineseIdNumber('110105194912310021')).toBe(false);
    expect(isBankCardNumber('4111 1111 1111 1111')).toBe(true);
    expect(isBankCardNumber('4111 1111 1111 1112')).toBe(false);
    const idCheck = formatValidator({
      name: 'id',
      field: 'insured',
      noun: 'ID number',
      test: isChineseIdNumber,
    });
    expect(
      codes({ steps: [step('s1', 'find_policy', { insured: '123' })] }, ctx({ validators: [idCheck] })),
    ).toEqual(['invalid_value']);
  });
});
