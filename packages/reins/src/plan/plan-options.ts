import type { AutoSteps } from '../auto-steps.js';
import type { RunLimits } from '../limits.js';
import type { Model, ToolSpec } from '../model.js';
import type { TimeoutHierarchy } from '../timeout-hierarchy.js';
import type { RunDeps } from '../util/deps.js';
import type { ActEnv } from '../loop/act-env.js';
import type { Approvals } from '../loop/approvals.js';
import type { EventLog } from '../loop/event-log.js';
import type { RunAbort } from '../loop/run-abort.js';
import type { AgentRun, RunAgentOptions } from '../loop/run-agent.js';
import type { RunDeadline } from '../loop/run-deadline.js';
import type { Clarifications, ClarifyOptions } from './clarify.js';
import type { DomainValidator } from './domain-validators.js';
import type { PlanNode } from './nodes.js';
import type { TaskState, TaskStateSnapshot } from './task-state.js';

// The options of a plan-and-execute run, its handle, and what `runPlanAgent` builds from them.

export interface PlanAgentOptions extends Omit<RunAgentOptions, 'clarify' | 'decisionFormat'> {
  /** Business rules on plan steps, run before anything executes (seed 001: codes, ID numbers, regions). */
  readonly validators?: readonly DomainValidator[];
  /** Questions to the user (default: at most 2, waiting `approvalTtlMs`, then stop). */
  readonly clarify?: ClarifyOptions;
  /** Steps one plan may have (default 8). */
  readonly maxPlanSteps?: number;
  /** Re-plans per run, after an invalid plan or a step failing with `INVALID_PARAMETER` (default 1). */
  readonly maxReplans?: number;
  /** The task state of earlier runs of the same task (`run.taskState` of the last one). */
  readonly taskState?: TaskStateSnapshot;
  /** The nodes (default `DEFAULT_PLAN_NODES`) and the router (default `routerNode`); the first node starts. */
  readonly nodes?: readonly PlanNode[];
  readonly router?: PlanNode;
}

/** A plan-and-execute run: the same handle as a ReAct run, plus the task state it built. */
export interface PlanRun extends AgentRun {
  /** The task state now (earlier runs' entries and this run's step outputs): pass it to the next run. */
  readonly taskState: TaskStateSnapshot;
}

export const DEFAULT_MAX_PLAN_STEPS = 8;
export const DEFAULT_MAX_REPLANS = 1;

export function positive(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  return value;
}

/** What a plan run is made of, built by `runPlanAgent` for its `PlanRunner`. */
export interface RunnerSetup {
  readonly options: PlanAgentOptions;
  /** The model to call (a rebuilt run's answers from its history first). */
  readonly model: Model;
  /** The run's time budget from now (all of `limits.deadlineMs`, or what a rebuilt run has left). */
  readonly deadlineMs: number;
  readonly deps: RunDeps;
  readonly limits: RunLimits;
  /** `maxSteps: 'auto'`: the limit chosen from the query and why. */
  readonly maxStepsAuto: AutoSteps | undefined;
  readonly timeouts: TimeoutHierarchy;
  readonly specs: readonly ToolSpec[];
  readonly names: readonly string[];
  readonly log: EventLog;
  readonly abort: RunAbort;
  readonly deadline: RunDeadline;
  readonly approvals: Approvals;
  readonly clarifications: Clarifications;
  readonly taskState: TaskState;
  readonly maxPlanSteps: number;
  readonly maxReplans: number;
  readonly act: ActEnv;
}

/** One plan run: the context its nodes use, the sink of its tools' progress, its approval gate. */
