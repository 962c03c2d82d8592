import { parseStructured, type StructuredParse, type Validation } from '../decision/parse-structured.js';
import {
  missingInfoQuestion,
  validateReasoning,
  type StructuredReasoning,
} from '../decision/structured-reasoning.js';
import { checkPlannerShape } from './planner-shape.js';

/**
 * One step of a plan: call registered action `action` with `input` after the steps named in
 * `dependsOn` have succeeded. An input value `{"$ref": "s1.output.policy_no"}` is replaced by
 * that field of step s1's output (s1 must be a dependency); `{"$ref":
 * "task.find_policy.output.policy_no"}` by the latest output of `find_policy` in the task state.
 */
export interface PlanStep {
  readonly id: string;
  readonly action: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly dependsOn: readonly string[];
}

export interface Plan {
  readonly steps: readonly PlanStep[];
}

/** Why a plan version exists (see `PlanStepEvent`). */
export type PlanVersionReason = 'initial' | 'replan' | 'clarified';

/** A candidate answer of a question (same shape as the `clarify` event's). */
export interface Candidate {
  readonly value: string;
  readonly label: string;
}

/**
 * One thing wrong with a plan. `ask` is set when the user can resolve it (an ambiguous value
 * with its candidates, a missing or malformed value): it becomes a question; without it the
 * planner is asked to re-plan.
 */
export interface PlanProblem {
  readonly code: PlanProblemCode;
  readonly message: string;
  readonly stepId?: string | undefined;
  /** The input field concerned (a dotted path). */
  readonly field?: string | undefined;
  /** For `cycle`: the steps of the cycle, in order. */
  readonly steps?: readonly string[] | undefined;
  readonly ask?: { readonly question: string; readonly candidates: readonly Candidate[] } | undefined;
}

export type PlanProblemCode =
  | 'unparsed'
  | 'duplicate_id'
  | 'unknown_action'
  | 'invalid_input'
  | 'missing_value'
  | 'unknown_dependency'
  | 'dependency_order'
  | 'cycle'
  | 'dangling_ref'
  | 'ref_not_dependency'
  | 'too_many_steps'
  | 'over_deadline'
  | 'ambiguous_value'
  | 'invalid_value';

/** What the planner replied: a plan, or a question (its structured reasoning lacks information). */
export type PlannerReply =
  | {
      readonly kind: 'plan';
      readonly thought: string;
      readonly plan: Plan;
      readonly reasoning?: StructuredReasoning | undefined;
    }
  | {
      readonly kind: 'ask';
      readonly thought: string;
      readonly question: string;
      readonly reasoning?: StructuredReasoning | undefined;
    };

/**
 * The planner's reply format, strict: `{thought?, reasoning?, steps}` or `{thought?, reasoning?,
 * ask}`. Structured reasoning with non-empty `missing_info` is a question whatever else the
 * reply holds (missing information is asked for, never guessed).
 */
export function validatePlannerReply(value: Readonly<Record<string, unknown>>): Validation<PlannerReply> {
  const parsed = checkPlannerShape(value);
  if (!parsed.ok) return parsed;
  const { thought = '', steps, ask } = parsed.value;
  let reasoning: StructuredReasoning | undefined;
  if (parsed.value.reasoning !== undefined) {
    const checked = validateReasoning(parsed.value.reasoning);
    if (!checked.ok) return checked;
    reasoning = checked.value;
    if (reasoning.missing_info.length > 0) {
      return {
        ok: true,
        value: { kind: 'ask', thought, question: missingInfoQuestion(reasoning.missing_info), reasoning },
      };
    }
  }
  if (steps !== undefined && ask !== undefined)
    return { ok: false, message: 'give "steps" or "ask", not both' };
  if (ask !== undefined) return { ok: true, value: { kind: 'ask', thought, question: ask, reasoning } };
  if (steps === undefined) return { ok: false, message: '"steps" (a non-empty array) or "ask" is required' };
  return { ok: true, value: { kind: 'plan', thought, plan: { steps }, reasoning } };
}

/** The central parser (one repair, raw kept) with the planner's strict schema. */
export function parsePlannerReply(raw: string): StructuredParse<PlannerReply> {
  return parseStructured(raw, validatePlannerReply);
}
