import { instructionsWithAnswer } from '../answer-format.js';
import type { PlanStepEvent } from '../events.js';
import { parseDecision } from '../decision/index.js';
import { withRepairParsers } from '../decision/repair-parsers.js';
import { reasonDraft } from '../loop/step-events.js';
import { executePlan } from './execute-plan.js';
import type { PlanContext, PlanNode, PlanState } from './nodes.js';
import { parsePlannerReply, type Plan } from './plan-schema.js';
import { plannerMessages, responderMessages } from './plan-prompt.js';
import { typedAnswer } from './typed-answer.js';
import { validatePlan } from './validate-plan.js';

/** The planner: asks the model for a plan (or a re-plan); a reply with `missing_info` becomes a question. */
export const plannerNode: PlanNode = {
  name: 'planner',
  async run(state, ctx) {
    const messages = plannerMessages({
      query: state.query,
      specs: ctx.specs,
      instructions: ctx.instructions,
      maxPlanSteps: ctx.maxPlanSteps,
      task: ctx.taskState.latestByAction(),
      answers: state.answers,
      replan: state.replanFor,
    });
    state.replanFor = undefined;
    const startedAt = ctx.deps.now();
    const result = await ctx.callModel(messages, false);
    const endedAt = ctx.deps.now();
    if (!result.ok) return modelFailed(state, ctx, result.error);
    state.planIndex = ctx.modelSteps;
    const parse = await withRepairParsers(() => parsePlannerReply(result.text));
    const model = result.model ?? 'model';
    if (parse.ok && parse.value.kind === 'ask') {
      // Kept as evidence like any model step: the raw reply and what it decided.
      const decision = { kind: 'ask' as const, thought: parse.value.thought, ask: parse.value.question };
      ctx.log.append({
        type: 'step',
        phase: 'reason',
        index: ctx.modelSteps,
        startedAt,
        endedAt,
        durationMs: endedAt - startedAt,
        model,
        toolsOffered: false,
        raw: result.text,
        usage: result.usage,
        parse: { ok: true, via: parse.via },
        decision,
        route: result.route,
        prompt: ctx.keptPrompt(ctx.modelSteps),
      });
      state.question = { question: parse.value.question, candidates: [] };
      return state;
    }
    state.draft = {
      plan: parse.ok && parse.value.kind === 'plan' ? parse.value.plan : { steps: [] },
      raw: result.text,
      model,
      usage: result.usage,
      startedAt,
      endedAt,
      unparsed: parse.ok ? undefined : `${parse.failure}: ${parse.message}`,
      prompt: ctx.keptPrompt(ctx.modelSteps),
    };
    return state;
  },
};

/** The validator: checks the draft and logs it as the next plan version (`step` `phase: "plan"`). */
export const validatorNode: PlanNode = {
  name: 'validator',
  run(state, ctx) {
    const draft = state.draft;
    if (draft === undefined) throw new Error('validator: no plan to validate');
    state.draft = undefined;
    const validation =
      draft.unparsed !== undefined
        ? {
            ok: false,
            problems: [{ code: 'unparsed' as const, message: `the plan did not parse: ${draft.unparsed}` }],
          }
        : validatePlan(draft.plan, {
            registry: ctx.registry,
            maxPlanSteps: ctx.maxPlanSteps,
            timeLeftMs: ctx.timeLeftMs(),
            defaultTimeoutMs: ctx.limits.toolTimeoutMs,
            taskState: ctx.taskState,
            validators: ctx.validators,
          });
    state.version++;
    state.plan = draft.plan;
    // The logged verdict decides: a run rebuilt after a restart keeps its history's (its time
    // budget differs now, and a plan that ran must not be found invalid on replay).
    const logged = ctx.log.append(
      {
        type: 'step',
        phase: 'plan',
        index: state.planIndex,
        version: state.version,
        reason: state.reason,
        plan: draft.plan,
        raw: draft.raw,
        validation: { ok: validation.ok, problems: validation.problems },
        model: draft.model,
        usage: draft.usage,
        startedAt: draft.startedAt,
        endedAt: draft.endedAt,
        durationMs: draft.endedAt - draft.startedAt,
        ...(draft.prompt === undefined ? {} : { prompt: draft.prompt }),
      },
      draft.endedAt,
    ) as PlanStepEvent;
    state.validation = { ...validation, ok: logged.validation.ok, problems: logged.validation.problems };
    return state;
  },
};

/**
 * The clarifier: asks the pending question (the plan stays frozen meanwhile); the answer
 * patches the one value of the step it is about (a `clarified` version, validated again), or
 * goes to the planner as information it lacked.
 */
export const clarifierNode: PlanNode = {
  name: 'clarifier',
  async run(state, ctx) {
    const question = state.question;
    if (question === undefined) throw new Error('clarifier: no question');
    state.question = undefined;
    const asked = await ctx.ask(question);
    if (asked.kind === 'cancelled') {
      state.end = { kind: 'cancelled' };
      return state;
    }
    if (asked.kind === 'stop') {
      state.end = { kind: 'stop', reason: 'unanswered', text: asked.why };
      return state;
    }
    state.reason = 'clarified';
    const { stepId, field } = question;
    if (stepId !== undefined && field !== undefined && state.plan !== undefined) {
      const now = ctx.deps.now();
      const tool = ctx.registry.get(state.plan.steps.find((s) => s.id === stepId)?.action ?? '');
      state.draft = {
        plan: patchPlan(state.plan, stepId, field, typedAnswer(tool, field, asked.value)),
        raw: '',
        startedAt: now,
        endedAt: now,
      };
    } else {
      state.answers.push({ question: question.question, value: asked.value });
    }
    return state;
  },
};

/** The frozen plan with one input value of one step replaced (the user's answer, as its field's type: `typedAnswer`). */
export function patchPlan(plan: Plan, stepId: string, field: string, value: unknown): Plan {
  return {
    steps: plan.steps.map((step) => {
      if (step.id !== stepId) return step;
      const input = structuredClone(step.input) as Record<string, unknown>;
      const path = field.split('.');
      let here: Record<string, unknown> = input;
      for (const key of path.slice(0, -1)) {
        const next = here[key];
        here = (here[key] = next !== null && typeof next === 'object' ? next : {}) as Record<string, unknown>;
      }
      here[path.at(-1) as string] = value;
      return { ...step, input };
    }),
  };
}

/** The executor: runs the validated plan (see `executePlan`). */
export const executorNode: PlanNode = {
  name: 'executor',
  async run(state, ctx) {
    if (state.plan === undefined) throw new Error('executor: no plan');
    const execution = await executePlan(state.plan, {
      act: ctx.act,
      log: ctx.log,
      deps: ctx.deps,
      index: state.planIndex,
      concurrency: ctx.limits.toolConcurrency,
      taskState: ctx.taskState,
    });
    state.execution = execution;
    // Steps left for a re-plan are not outcomes: the next version says what happens to them.
    state.outcomes = [
      ...state.outcomes.filter((o) => o.status !== 'skipped'),
      ...execution.outcomes.filter((o) => o.status !== 'skipped' || execution.replan === undefined),
    ];
    return state;
  },
};

/** The responder: one model call for the answer, from the steps' results. */
export const responderNode: PlanNode = {
  name: 'responder',
  async run(state, ctx) {
    const results = state.outcomes.map((o) => ({
      tool: o.step.action,
      stepId: o.step.id,
      body:
        o.status === 'ok'
          ? { status: 'ok', result: o.observation?.result }
          : o.status === 'failed'
            ? {
                status: o.observation?.status,
                error: { code: o.observation?.error?.code, message: o.observation?.error?.message },
              }
            : { status: 'skipped', reason: o.reason },
    }));
    const startedAt = ctx.deps.now();
    const instructions = instructionsWithAnswer(ctx.instructions, ctx.answer);
    const result = await ctx.callModel(
      responderMessages(state.query, instructions, results, state.answers),
      true,
    );
    const endedAt = ctx.deps.now();
    if (!result.ok) return modelFailed(state, ctx, result.error);
    const parse = await withRepairParsers(() => parseDecision(result.text));
    ctx.log.appendStamped(
      reasonDraft(
        ctx.modelSteps,
        startedAt,
        endedAt,
        'model',
        false,
        result,
        parse,
        ctx.act.runId,
        ctx.log.nextSeq,
        ctx.keptPrompt(ctx.modelSteps),
      ),
    );
    const decision = parse.ok ? parse.value : undefined;
    if (decision?.kind === 'action' || decision?.kind === 'actions') {
      // Tools are off for the answer (the last step): a call asked for here is not an answer,
      // and its JSON is not shown as one. Ended as the ReAct loop ends such a last step.
      const asked = decision.kind === 'action' ? [decision.action] : decision.actions.map((a) => a.action);
      const text = `Stopped: asked for the answer, the model asked to call ${[...new Set(asked)].join(', ')} instead (tools are off for the answer); no answer was written.`;
      state.end = { kind: 'stop', reason: 'max_steps', text };
      return state;
    }
    state.end =
      decision?.kind === 'final'
        ? {
            kind: 'answer',
            text: decision.final,
            format: 'structured',
            intent: 'answer',
            data: decision.data,
          }
        : decision?.kind === 'ask'
          ? { kind: 'answer', text: decision.ask, format: 'structured', intent: 'ask' }
          : {
              kind: 'answer',
              text: result.text.trim() || '(the model returned an empty reply)',
              format: 'raw',
              intent: 'answer',
            };
    return state;
  },
};

function modelFailed(
  state: PlanState,
  ctx: PlanContext,
  error: { code: string; message: string },
): PlanState {
  state.end = ctx.aborted
    ? { kind: 'cancelled' }
    : {
        kind: 'error',
        code: 'MODEL_FAILED',
        message: `model failed at step ${ctx.modelSteps}: ${error.code}: ${error.message}`,
      };
  return state;
}

/** The default pipeline: planner → validator → (clarifier) → executor → responder, routed by `routerNode`. */
export const DEFAULT_PLAN_NODES: readonly PlanNode[] = Object.freeze([
  plannerNode,
  validatorNode,
  clarifierNode,
  executorNode,
  responderNode,
]);
