import type { StepOutcome } from './execute-plan.js';
import type { PlanContext, PlanNode, PlanState } from './nodes.js';
import type { PlanProblem } from './plan-schema.js';

/**
 * The router: after each node, where the run goes. A valid plan runs; a problem the user can
 * resolve becomes a question; any other problem, or a step failing with `INVALID_PARAMETER`,
 * goes back to the planner at most `maxReplans` times (then the run stops, saying why); the
 * responder ends the run.
 */
export const routerNode: PlanNode = {
  name: 'router',
  run(state, ctx) {
    state.next = route(state, ctx);
    return state;
  },
};

function route(state: PlanState, ctx: PlanContext): string {
  if (state.end !== undefined) return 'end';
  switch (state.last) {
    case 'planner':
      return state.question !== undefined ? 'clarifier' : 'validator';
    case 'validator': {
      const validation = state.validation;
      if (validation === undefined || validation.ok) return 'executor';
      const askable = validation.problems.find((p) => p.ask !== undefined);
      if (askable?.ask !== undefined) {
        state.question = {
          question: askable.ask.question,
          candidates: askable.ask.candidates,
          field: askable.field,
          stepId: askable.stepId,
        };
        return 'clarifier';
      }
      return replanOrStop(state, ctx, validation.problems);
    }
    case 'clarifier':
      if (state.draft !== undefined) return 'validator';
      return roomForPlanner(ctx) ? 'planner' : stop(state, ctx, 'max_steps', stepLimitText(ctx));
    case 'executor': {
      const failed = state.execution?.replan;
      if (failed === undefined) return 'responder';
      if (state.replans >= ctx.maxReplans || !roomForPlanner(ctx)) return noReplan(state, ctx, failed.stepId);
      state.replans++;
      state.reason = 'replan';
      state.replanFor = {
        failed: failed.observation,
        stepId: failed.stepId,
        completed: state.outcomes.flatMap((o) => {
          const entry = o.status === 'ok' ? ctx.taskState.step(o.step.id) : undefined;
          return entry === undefined ? [] : [entry];
        }),
      };
      return 'planner';
    }
    default:
      return 'end';
  }
}

function replanOrStop(state: PlanState, ctx: PlanContext, problems: readonly PlanProblem[]): string {
  if (state.replans < ctx.maxReplans && roomForPlanner(ctx)) {
    state.replans++;
    state.reason = 'replan';
    state.replanFor = { problems, previous: state.plan?.steps };
    return 'planner';
  }
  const listed = problems.map((p) => p.message).join('; ');
  // Steps of an earlier version ran: the answer says what they found, and that the rest failed —
  // the steps left for this re-plan among them, as not run.
  if (state.outcomes.some((o) => o.status !== 'skipped')) {
    const skipped = state.execution?.outcomes.filter(
      (o) => o.status === 'skipped' && !state.outcomes.includes(o),
    );
    state.outcomes.push(...notRun(skipped ?? [], `not run: the re-plan was still invalid (${listed})`));
    return 'responder';
  }
  return stop(
    state,
    ctx,
    'invalid_plan',
    `Stopped: the plan is still invalid after ${state.replans} re-plan(s), so nothing was run: ${listed}`,
  );
}

/**
 * A re-plan was due and cannot come: the steps the last execution skipped go to the answer as
 * not run, saying why. When the re-plans allowed were not used up, the step limit alone stood
 * in the way: the run answers from what ran, then ends stopped at that limit (`limited`).
 */
function noReplan(state: PlanState, ctx: PlanContext, failedStepId: string): string {
  const skipped = state.execution?.outcomes.filter((o) => o.status === 'skipped') ?? [];
  const byLimit = state.replans < ctx.maxReplans;
  const why = byLimit
    ? `not run: the step limit (${ctx.limits.maxSteps} model steps) left no room to re-plan it`
    : `not run: step ${failedStepId} failed and the re-plans allowed (${ctx.maxReplans}) are used up`;
  const left = skipped.filter((o) => o.leftForReplan === true);
  state.outcomes.push(...notRun(skipped, why));
  if (byLimit && left.length > 0)
    state.limited = { reason: 'max_steps', notRun: left.map((o) => o.step.action) };
  return 'responder';
}

/** Skipped outcomes for the answer: those left for a re-plan that will not come say `why`. */
function notRun(skipped: readonly StepOutcome[], why: string): StepOutcome[] {
  return skipped.map((o) => (o.leftForReplan === true ? { ...o, reason: why } : o));
}

/** A planner call must leave one model step for the answer. */
function roomForPlanner(ctx: PlanContext): boolean {
  return ctx.modelSteps + 2 <= ctx.limits.maxSteps;
}

function stepLimitText(ctx: PlanContext): string {
  return `Stopped: the step limit (${ctx.limits.maxSteps} model steps) leaves no room for another plan and an answer.`;
}

function stop(
  state: PlanState,
  _ctx: PlanContext,
  reason: 'max_steps' | 'invalid_plan',
  text: string,
): string {
  state.end = { kind: 'stop', reason, text };
  return 'end';
}
