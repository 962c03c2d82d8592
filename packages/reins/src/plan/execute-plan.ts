import type { ActStep } from '../events.js';
import type { Observation } from '../observation.js';
import type { RunDeps } from '../util/deps.js';
import type { EventLog } from '../loop/event-log.js';
import { actOn } from '../loop/execute-action.js';
import type { ActEnv } from '../loop/act-env.js';
import { refusal, runsAlone } from '../loop/step-rules.js';
import type { Plan, PlanStep } from './plan-schema.js';
import { resolveRefs } from './resolve-refs.js';
import type { TaskState } from './task-state.js';

export interface ExecutePlanEnv {
  /** The run's act environment: tool policies, sandbox, checks, sanitizer, approvals, fallbacks. */
  readonly act: ActEnv;
  readonly log: EventLog;
  readonly deps: RunDeps;
  /** The model step whose plan this is (the `index` of the act / observe events). */
  readonly index: number;
  /** Steps running at the same time (a step that may change something runs alone). */
  readonly concurrency: number;
  readonly taskState: TaskState;
}

export interface StepOutcome {
  readonly step: PlanStep;
  readonly status: 'ok' | 'failed' | 'skipped';
  readonly observation?: Observation | undefined;
  /** Why a step was skipped (a dependency failed or was skipped, or a re-plan is coming). */
  readonly reason?: string | undefined;
  /** Skipped because a step failed with `INVALID_PARAMETER`: left for the re-plan. */
  readonly leftForReplan?: boolean | undefined;
}

export interface PlanExecution {
  /** Every step of the plan, in declaration order. */
  readonly outcomes: readonly StepOutcome[];
  /** Set when a step failed with `INVALID_PARAMETER`: the rest of the plan is to be re-planned. */
  readonly replan?: { readonly stepId: string; readonly observation: Observation } | undefined;
}

/**
 * Runs a validated plan in dependency order: a step starts when all its dependencies have
 * succeeded, independent steps side by side (at most `concurrency`; a step whose tool may
 * change something waits for the others and runs alone). Each step goes through
 * `executeAction` with its references resolved from the task state; its checked output is
 * recorded there. A failed step skips its dependents. A step failing with
 * `INVALID_PARAMETER` starts nothing more: what is left goes back to the planner. Nothing
 * starts after the run is aborted.
 */
export async function executePlan(plan: Plan, env: ExecutePlanEnv): Promise<PlanExecution> {
  const outcomes = new Map<string, StepOutcome>();
  const waiting = [...plan.steps];
  const running = new Map<string, Promise<void>>();
  // The step that may change something, while it runs alone.
  let alone: string | undefined;
  let replan: PlanExecution['replan'];
  const registry = env.act.registry;
  const satisfied = (dep: string): boolean =>
    outcomes.get(dep)?.status === 'ok' || (env.taskState.step(dep) !== undefined && !planHas(plan, dep));

  for (;;) {
    if (env.act.signal.aborted) break;
    // Dependents of a failed or skipped step never run.
    for (let i = 0; i < waiting.length; i++) {
      const step = waiting[i] as PlanStep;
      const blocked = step.dependsOn.find((dep) => {
        const status = outcomes.get(dep)?.status;
        return status === 'failed' || status === 'skipped';
      });
      if (blocked === undefined) continue;
      outcomes.set(step.id, { step, status: 'skipped', reason: `its dependency ${blocked} did not succeed` });
      waiting.splice(i--, 1);
    }
    if (replan === undefined && (alone === undefined || !running.has(alone))) {
      for (let i = 0; i < waiting.length; i++) {
        const step = waiting[i] as PlanStep;
        if (!step.dependsOn.every(satisfied)) continue;
        const exclusive = runsAlone(registry, step.action);
        if (exclusive && running.size > 0) break; // waits for the steps before it, in order
        if (running.size >= env.concurrency) break;
        waiting.splice(i--, 1);
        const started = start(step, env, outcomes, (failed) => (replan ??= failed)).finally(() =>
          running.delete(step.id),
        );
        running.set(step.id, started);
        if (exclusive) {
          alone = step.id;
          break;
        }
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  await Promise.all(running.values());
  for (const step of waiting) {
    if (outcomes.has(step.id)) continue;
    const leftForReplan = !env.act.signal.aborted && replan !== undefined;
    const reason = env.act.signal.aborted
      ? 'the run stopped before it started'
      : replan !== undefined
        ? `step ${replan.stepId} failed with INVALID_PARAMETER: the rest is re-planned`
        : 'its dependencies did not succeed';
    outcomes.set(step.id, { step, status: 'skipped', reason, ...(leftForReplan ? { leftForReplan } : {}) });
  }
  return { outcomes: plan.steps.map((s) => outcomes.get(s.id) as StepOutcome), replan };
}

function planHas(plan: Plan, id: string): boolean {
  return plan.steps.some((s) => s.id === id);
}

async function start(
  step: PlanStep,
  env: ExecutePlanEnv,
  outcomes: Map<string, StepOutcome>,
  onInvalid: (failed: { stepId: string; observation: Observation }) => void,
): Promise<void> {
  const { deps, log, index } = env;
  const startedAt = deps.now();
  const resolved = resolveRefs(step.input, (ref) => {
    const entry = ref.kind === 'step' ? env.taskState.step(ref.stepId) : env.taskState.latest(ref.action);
    return entry === undefined ? { found: false } : { found: true, output: entry.output };
  });
  const input = resolved.ok ? resolved.value : step.input;
  // The logged id: a run rebuilt after a restart gets its history's back (see `RunReplay`).
  const { actId } = log.append(
    {
      type: 'step',
      phase: 'act',
      index,
      actId: deps.newId(),
      tool: step.action,
      input,
      planStepId: step.id,
      startedAt,
      endedAt: startedAt,
      durationMs: 0,
    },
    startedAt,
  ) as ActStep;
  const observation = resolved.ok
    ? await actOn({ actId, tool: step.action, input }, env.act, startedAt)
    : refusal(actId, step.action, 'INVALID_PARAMETER', resolved.message);
  const endedAt = startedAt + observation.durationMs;
  if (!log.closed) {
    log.append(
      {
        type: 'step',
        phase: 'observe',
        index,
        actId,
        observation,
        planStepId: step.id,
        startedAt,
        endedAt,
        durationMs: observation.durationMs,
      },
      endedAt,
    );
  }
  if (observation.status === 'ok') {
    env.taskState.record({
      runId: env.act.runId,
      stepId: step.id,
      action: step.action,
      output: observation.result,
      at: endedAt,
    });
    outcomes.set(step.id, { step, status: 'ok', observation });
    return;
  }
  outcomes.set(step.id, { step, status: 'failed', observation });
  if (observation.error?.code === 'INVALID_PARAMETER') onInvalid({ stepId: step.id, observation });
}
