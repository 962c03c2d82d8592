import type { Decision, ParseFailure, ParseVia } from './decision/index.js';
import type { ErrorCode } from './errors.js';
import type { AutoSteps } from './auto-steps.js';
import type { RunLimits } from './limits.js';
import type { ToolCall, Usage } from './model.js';
import type { Degraded, Observation } from './observation.js';
import type { TimeoutHierarchy } from './timeout-hierarchy.js';
import type { Plan, PlanProblem, PlanVersionReason } from './plan/plan-schema.js';
import type { PromptSnapshot } from './prompt-snapshot.js';

/** How a run stopped: ended (`success`, `stopped`, `cancelled`, `error`) or paused for its user. */
export type RunStatus =
  'success' | 'stopped' | 'cancelled' | 'error' | 'awaiting_approval' | 'awaiting_input';

/**
 * Which limit ended a `stopped` run. Plan runs add: `invalid_plan` (still invalid after the
 * bounded re-plan), `unanswered` (a question was needed after the cap of questions, or a
 * question timed out, and no default was configured). Durable runs add, after a crash:
 * `outcome_unknown` (a call that may change something had started and left no observation,
 * so it is not made again: a person must check) and `interrupted` (the run was running when
 * the process stopped and resuming is turned off).
 */
export type StopReason =
  | 'max_steps'
  | 'repeated_action'
  | 'deadline'
  | 'invalid_plan'
  | 'unanswered'
  | 'outcome_unknown'
  | 'interrupted';

export type StepPhase = 'reason' | 'act' | 'observe' | 'plan' | 'progress';

interface EventBase {
  readonly runId: string;
  /** 0-based position in the run's event log (SSE `id:`). */
  readonly seq: number;
  /** Epoch ms when the event was emitted. */
  readonly at: number;
}

interface StepBase extends EventBase {
  readonly type: 'step';
  /** 1-based model step this phase belongs to. */
  readonly index: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly durationMs: number;
}

/** What input cleaning did to the prompt's copy of the user's text (the record keeps the original). */
export interface InputCleaned {
  /** The markers neutralized, e.g. `["{{", "<script", "system:", "</user_input>"]`. */
  readonly markers: readonly string[];
}

export interface StartEvent extends EventBase {
  readonly type: 'start';
  readonly agent: string;
  readonly model: string;
  readonly demo: boolean;
  readonly query: string;
  readonly tools: readonly string[];
  readonly limits: RunLimits;
  /** `maxSteps: 'auto'`: the step limit chosen from the query (`limits.maxSteps`) and why. */
  readonly maxStepsAuto?: AutoSteps | undefined;
  /** Markers neutralized in the user's text as the prompt shows it (absent when there were none). */
  readonly inputCleaned?: InputCleaned | undefined;
  /** The nested time budgets: tool × tries × 1.5 ≤ model call ≤ run deadline. */
  readonly timeouts: TimeoutHierarchy;
  /** The conversation this run is a turn of (seed 001's session state), when it is one. */
  readonly conversationId?: string | undefined;
  /** How the model is composed (`Model.stack`), when it is a composed stack. */
  readonly modelStack?: string | undefined;
}

export interface ReasonStep extends StepBase {
  readonly phase: 'reason';
  /** The model that answered this step (a fallback may differ from the run's model). */
  readonly model: string;
  readonly toolsOffered: boolean;
  readonly raw: string;
  readonly usage: Usage;
  readonly parse:
    | { readonly ok: true; readonly via: ParseVia }
    | { readonly ok: false; readonly failure: ParseFailure; readonly message: string };
  /** Absent (undefined) when the reply did not parse. */
  readonly decision?: Decision | undefined;
  /** The provider's native tool calls, as it sent them (absent for text decisions). */
  readonly toolCalls?: readonly ToolCall[] | undefined;
  /** Why this model answered (`ModelResult.route`), when a composed stack says. */
  readonly route?: string | undefined;
  /**
   * The exact messages the model was sent at this step, masked like observations, with token
   * counts (the prompt debugger; absent when the run does not record prompts). A delta
   * against the previous model step's (a plan run keeps each whole): rebuild the list with
   * `keptPrompts(events)`.
   */
  readonly prompt?: PromptSnapshot | undefined;
}

export interface ActStep extends StepBase {
  readonly phase: 'act';
  readonly actId: string;
  readonly tool: string;
  /** For a plan step: its input with every `$ref` resolved (what the tool was given). */
  readonly input: unknown;
  /** Set when the call is a step of a plan: the plan step's `id` (absent in ReAct runs). */
  readonly planStepId?: string | undefined;
}

export interface ObserveStep extends StepBase {
  readonly phase: 'observe';
  readonly actId: string;
  readonly observation: Observation;
  /** Set when the call is a step of a plan: the plan step's `id` (absent in ReAct runs). */
  readonly planStepId?: string | undefined;
}

/**
 * One version of a plan-and-execute run's plan, logged before anything of it runs.
 *
 * Contract (the web UI draws the plan graph from this event; keep the shape):
 * - `version` counts from 1 within the run; `reason` says why this version exists: the
 *   planner's first plan (`initial`), a re-plan after an invalid plan or a step that failed
 *   with `INVALID_PARAMETER` (`replan`), or the user's answer to a question (`clarified`).
 * - `plan.steps` is the plan as written (inputs may hold `{"$ref": "s1.output.x"}`); a reply
 *   that did not parse gives `steps: []` and a problem with code `unparsed`.
 * - `raw` is the planner's reply text as it came ('' for a version made by code, e.g. a
 *   clarified patch of the frozen plan).
 * - `validation.ok` is true when nothing is wrong; otherwise `problems` lists every finding
 *   (code, message, the step and field concerned; a cycle names its steps in `steps`).
 * - `index` is the model step that produced the plan (a patched version keeps its index).
 */
export interface PlanStepEvent extends StepBase {
  readonly phase: 'plan';
  readonly version: number;
  readonly reason: PlanVersionReason;
  readonly plan: Plan;
  readonly raw: string;
  readonly validation: { readonly ok: boolean; readonly problems: readonly PlanProblem[] };
  /** The model that wrote it and what it cost (absent for a version made by code). */
  readonly model?: string | undefined;
  readonly usage?: Usage | undefined;
  /**
   * The exact messages the planner was sent for this version, masked, with token counts (the
   * prompt debugger, as `ReasonStep.prompt`; absent for a version made by code or when the run
   * does not record prompts). Rebuild the list with `keptPrompts(events)`.
   */
  readonly prompt?: PromptSnapshot | undefined;
}

/**
 * Something arriving while a step runs: a streaming model's text delta, or a tool's progress
 * report. Live-only: the run record keeps reason / act / observe, not these.
 */
export type ProgressStep = ModelProgressStep | ToolProgressStep | ToolSpanStep | NodeSpanStep;

/**
 * One node of a plan-and-execute run (planner, validator, clarifier, executor, responder,
 * router, or an app's own node) ran: its name, times and outcome. Live-only, like progress.
 */
export interface NodeSpanStep extends StepBase {
  readonly phase: 'progress';
  readonly source: 'node';
  readonly node: string;
  readonly ok: boolean;
}

/**
 * One named part of a tool call that does more than one thing (`ctx.span(name, work)`), with
 * its own start, end and outcome: a child of the tool call in traces. Live-only, like progress.
 */
export interface ToolSpanStep extends StepBase {
  readonly phase: 'progress';
  readonly source: 'tool_span';
  readonly actId: string;
  readonly tool: string;
  /** Sanitized (PII masked) and capped. */
  readonly name: string;
  readonly ok: boolean;
}

export interface ModelProgressStep extends StepBase {
  readonly phase: 'progress';
  readonly source: 'model';
  readonly text: string;
}

export interface ToolProgressStep extends StepBase {
  readonly phase: 'progress';
  readonly source: 'tool';
  readonly actId: string;
  readonly tool: string;
  readonly progress: number;
  readonly total?: number | undefined;
  /** Sanitized (PII masked) and capped. */
  readonly message?: string | undefined;
}

export type StepEvent = ReasonStep | ActStep | ObserveStep | PlanStepEvent | ProgressStep;

/**
 * The reply for the user. `format: "raw"` means the model's text could not be parsed even
 * after the one repair and is shown as it came, labeled. `intent: "notice"` is the
 * runtime's explanation of a stop.
 */
export interface MessageEvent extends EventBase {
  readonly type: 'message';
  readonly text: string;
  readonly format: 'structured' | 'raw';
  readonly intent: 'answer' | 'ask' | 'notice';
  readonly demo: boolean;
  /** Present when a fallback answered for a failing tool during the run: what was lost. */
  readonly degraded?: readonly Degraded[] | undefined;
  /**
   * The structured answer, when the agent has an answer format (`AnswerFormat`) and the
   * model's answer passed its schema (then `format` is `"structured"`); stamped by `finalize`.
   */
  readonly data?: unknown;
}

/**
 * The run pauses before a call that needs its user's approval: the exact (validated) input
 * and its hash, to which an approval is bound. Followed by `done {status:
 * "awaiting_approval"}`; an answer resumes the run in the same log.
 */
export interface ApprovalEvent extends EventBase {
  readonly type: 'approval';
  /** The model step whose call waits. */
  readonly index: number;
  readonly actId: string;
  readonly tool: string;
  readonly input: unknown;
  readonly inputHash: string;
  /** Epoch ms after which an answer is refused and the call is not made. */
  readonly expiresAt: number;
}

/** One answer the user may pick for a clarifying question. */
export interface ClarifyCandidate {
  /** What is used when picked (e.g. the hospital code `BJXH001`). */
  readonly value: string;
  /** What the user is shown (e.g. `北京协和医院`). */
  readonly label: string;
}

/**
 * The run pauses to ask its user something it cannot resolve itself (an ambiguous value with
 * known candidates, a missing required value, `missing_info` of structured reasoning).
 *
 * Contract: followed by `done {status: "awaiting_input"}`; a plan run's plan is frozen
 * meanwhile. `run.answer({questionId, value})` (server: `POST /v1/runs/:id/answer
 * {questionId, answer}`) resumes the same log from where it stopped. `field` and `stepId`
 * name what the answer fills in, when it fills in one value of one plan step; `candidates`
 * may be empty (free text). After `expiresAt` the answer is refused and the run goes on
 * with its configured default, or ends `stopped` (`unanswered`), saying why.
 */
export interface ClarifyEvent extends EventBase {
  readonly type: 'clarify';
  readonly questionId: string;
  readonly question: string;
  readonly field?: string | undefined;
  readonly candidates: readonly ClarifyCandidate[];
  readonly stepId?: string | undefined;
  /** Epoch ms after which an answer is refused. */
  readonly expiresAt: number;
}

/**
 * A pause ended: how the approval or question was settled (answered by whom, expired, or
 * cancelled), logged before anything the answer leads to. Evidence of who approved what, and
 * what a run rebuilt from its log after a restart replays instead of waiting again.
 */
export interface ResumeEvent extends EventBase {
  readonly type: 'resume';
  /** The act whose approval this settles. */
  readonly actId?: string | undefined;
  /** The question this settles. */
  readonly questionId?: string | undefined;
  readonly outcome: ResumeOutcome;
}

export type ResumeOutcome =
  | { readonly kind: 'approved'; readonly by: string; readonly at: number }
  | { readonly kind: 'declined'; readonly by: string; readonly at: number }
  | { readonly kind: 'answered'; readonly value: string; readonly at: number }
  | { readonly kind: 'expired'; readonly at: number }
  | { readonly kind: 'cancelled'; readonly at: number };

export interface ErrorEvent extends EventBase {
  readonly type: 'error';
  readonly code: ErrorCode;
  readonly message: string;
}

export interface DoneEvent extends EventBase {
  readonly type: 'done';
  readonly status: RunStatus;
  readonly stopReason?: StopReason;
  /** Model steps that completed (the last completed step on cancel). */
  readonly steps: number;
  readonly usage: Usage;
  readonly durationMs: number;
}

/**
 * `start → step* → message → done`; a failure is `… → error → done`; a pause is
 * `… → approval → done {awaiting_approval}` or `… → clarify → done {awaiting_input}`, and
 * the answer continues the same log with `resume` first.
 */
export type RunEvent =
  StartEvent | StepEvent | ApprovalEvent | ClarifyEvent | ResumeEvent | MessageEvent | ErrorEvent | DoneEvent;

/** An event before the log stamps it with run id, sequence number and time. */
export type EventDraft = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'runId' | 'seq' | 'at'>
    : never
  : never;
