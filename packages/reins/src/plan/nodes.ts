import type { AnswerFormat } from '../answer-format.js';
import type { ErrorCode } from '../errors.js';
import type { StopReason } from '../events.js';
import type { RunLimits } from '../limits.js';
import type { ChatMessage, ModelResult, ToolSpec, Usage } from '../model.js';
import type { PromptSnapshot } from '../prompt-snapshot.js';
import type { AnyTool } from '../tool.js';
import type { ActEnv } from '../loop/act-env.js';
import type { EventLog } from '../loop/event-log.js';
import type { RunDeps } from '../util/deps.js';
import type { AskResult, Question } from './ask-user.js';
import type { DomainValidator } from './domain-validators.js';
import type { PlanExecution, StepOutcome } from './execute-plan.js';
import type { Plan, PlanVersionReason } from './plan-schema.js';
import type { PlannerPromptInput } from './plan-prompt.js';
import type { TaskState } from './task-state.js';
import type { PlanValidation } from './validate-plan.js';

/** A plan version waiting to be validated: from the planner (raw, model, usage) or patched by code. */
export interface PlanDraft {
  readonly plan: Plan;
  readonly raw: string;
  readonly model?: string | undefined;
  readonly usage?: Usage | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
  /** Why the planner's reply did not parse (then `plan.steps` is empty). */
  readonly unparsed?: string | undefined;
  /** The messages the planner sent (`ctx.keptPrompt`), for the version's event; absent when made by code. */
  readonly prompt?: PromptSnapshot | undefined;
}

/** How the run ends, once a node decided it. */
export type PlanEnd =
  | {
      readonly kind: 'answer';
      readonly text: string;
      readonly format: 'structured' | 'raw';
      readonly intent: 'answer' | 'ask';
      /** The object of a `"final": {…}` answer, checked against the agent's answer format. */
      readonly data?: Readonly<Record<string, unknown>> | undefined;
    }
  | { readonly kind: 'stop'; readonly reason: StopReason; readonly text: string }
  | { readonly kind: 'error'; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: 'cancelled' };

/**
 * The typed state every node reads and updates (and returns). The task layer of state
 * (step outputs across runs) is `ctx.taskState`; this is the state of one run's plan.
 */
export interface PlanState {
  readonly query: string;
  /** The current (frozen, while a question waits) plan version. */
  plan: Plan | undefined;
  draft: PlanDraft | undefined;
  validation: PlanValidation | undefined;
  /** Plan versions logged so far. */
  version: number;
  /** Why the next version exists. */
  reason: PlanVersionReason;
  replans: number;
  /** The model step that produced the current plan. */
  planIndex: number;
  question: Question | undefined;
  answers: { readonly question: string; readonly value: string }[];
  replanFor: PlannerPromptInput['replan'];
  execution: PlanExecution | undefined;
  /** Steps that ran (all plan versions) and the last version's skipped steps. */
  outcomes: StepOutcome[];
  /**
   * A limit that left steps undone where a re-plan was due: the run answers from what ran,
   * then ends `stopped` at this limit, the answer saying so (and which steps did not run).
   */
  limited?: { readonly reason: StopReason; readonly notRun: readonly string[] } | undefined;
  end: PlanEnd | undefined;
  /** The node that just ran, and the one the router chose. */
  last: string | undefined;
  next: string | undefined;
}

export function initialPlanState(query: string): PlanState {
  return {
    query,
    plan: undefined,
    draft: undefined,
    validation: undefined,
    version: 0,
    reason: 'initial',
    replans: 0,
    planIndex: 0,
    question: undefined,
    answers: [],
    replanFor: undefined,
    execution: undefined,
    outcomes: [],
    end: undefined,
    last: undefined,
    next: undefined,
  };
}

/** What nodes may use: the run's configuration, log, tools and services. */
export interface PlanContext {
  readonly query: string;
  readonly instructions: string | undefined;
  /** The agent's structured answer format (the responder is told it; the run checks the answer). */
  readonly answer?: AnswerFormat | undefined;
  readonly specs: readonly ToolSpec[];
  readonly registry: ReadonlyMap<string, AnyTool>;
  readonly limits: RunLimits;
  readonly log: EventLog;
  readonly deps: RunDeps;
  readonly act: ActEnv;
  readonly taskState: TaskState;
  readonly validators: readonly DomainValidator[];
  readonly maxPlanSteps: number;
  readonly maxReplans: number;
  /** Model steps used so far (the planner's and the responder's calls). */
  readonly modelSteps: number;
  readonly aborted: boolean;
  /** Milliseconds left before the run's deadline. */
  timeLeftMs(): number;
  /** One model call, counted as a model step (usage added); settles at once on abort. */
  callModel(messages: readonly ChatMessage[], finalStep: boolean): Promise<ModelResult>;
  /**
   * The exact messages model step `step` (the latest call) was sent, masked, for the event
   * that logs it (the prompt debugger); once, and undefined when the run keeps no prompts.
   */
  keptPrompt(step: number): PromptSnapshot | undefined;
  /** Asks the user (pausing the run), within the run's question cap. */
  ask(question: Question): Promise<AskResult>;
}

/**
 * One unit of a plan-and-execute run, with one signature over the typed state (seed 001
 * §4.1): it reads `state`, does its one job, and returns the state for the next node.
 * Every node run is traced (a live `progress` event with `source: "node"`).
 */
export interface PlanNode {
  readonly name: string;
  run(state: PlanState, ctx: PlanContext): PlanState | Promise<PlanState>;
}

/** A bound on node hops: a router that never says `end` is a programmer mistake. */
const MAX_HOPS = 200;

/**
 * Runs nodes from `first` until the router says `end` (or the run is aborted): after each
 * node, `router` sets `state.next` from `state.last`. No graph framework: a map of nodes
 * and one routing function. `trace` is called for every node run.
 */
export async function runNodes(
  nodes: readonly PlanNode[],
  router: PlanNode,
  state: PlanState,
  ctx: PlanContext,
  trace: (node: string, startedAt: number, endedAt: number, ok: boolean) => void,
  first: string = nodes[0]?.name ?? 'end',
): Promise<PlanState> {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  let name = first;
  for (let hops = 0; name !== 'end' && !ctx.aborted; hops++) {
    if (hops >= MAX_HOPS)
      throw new Error(`plan nodes ran ${MAX_HOPS} times without ending: check the router`);
    const node = byName.get(name);
    if (node === undefined) throw new Error(`the router chose ${JSON.stringify(name)}, which is not a node`);
    state = await traced(node, state, ctx, trace);
    state.last = name;
    state.next = undefined;
    state = await traced(router, state, ctx, trace);
    name = state.next ?? 'end';
  }
  return state;
}

async function traced(
  node: PlanNode,
  state: PlanState,
  ctx: PlanContext,
  trace: (node: string, startedAt: number, endedAt: number, ok: boolean) => void,
): Promise<PlanState> {
  const startedAt = ctx.deps.now();
  try {
    const next = await node.run(state, ctx);
    trace(node.name, startedAt, ctx.deps.now(), true);
    return next;
  } catch (thrown) {
    trace(node.name, startedAt, ctx.deps.now(), false);
    throw thrown;
  }
}
