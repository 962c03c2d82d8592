import { shapeAnswer, type AnswerFormat } from '../answer-format.js';
import { loadRepairParsers, repairParsersReady } from '../decision/repair-parsers.js';
import { preloadLazyParts } from '../lazy-parts.js';
import { observationsOf } from '../loop/step-rules.js';
import type { RunStatus, StopReason } from '../events.js';
import { describeThrown } from '../errors.js';
import type { RunLimits } from '../limits.js';
import { chooseLimits } from '../loop/run-limits.js';
import { NO_USAGE, type ChatMessage, type Model, type ModelResult, type ToolSpec } from '../model.js';
import type { Degraded } from '../observation.js';
import type { PromptSnapshot } from '../prompt-snapshot.js';
import { ANONYMOUS, userKeyOf } from '../principal.js';
import { timeoutHierarchy } from '../timeout-hierarchy.js';
import type { AnyTool, ToolProgress } from '../tool.js';
import { withDefaults, type RunDeps } from '../util/deps.js';
import { stopReasonOf } from '../loop/abort-reasons.js';
import { partialStopNotice, stopNotice, writeStopNotice } from '../loop/stop-notice.js';
import { deadlineLeft, openRunLog, replayDeadline, replayInto } from '../loop/durable-run.js';
import { Approvals, type ApprovalOutcome } from '../loop/approvals.js';
import { pauseForApproval } from '../loop/pause-for-approval.js';
import { ABORTED, callModel, type ModelCallSlot } from '../loop/call-model.js';
import type { EventLog } from '../loop/event-log.js';
import { runActEnv, type ActEnv, type ApprovalGate, type ToolProgressSink } from '../loop/act-env.js';
import { defaultBlobStore } from '../loop/check-result.js';
import { appendToolProgress, appendToolSpan } from '../loop/live-events.js';
import { RunAbort } from '../loop/run-abort.js';
import { RunHandle } from '../loop/run-handle.js';
import { RunDeadline } from '../loop/run-deadline.js';
import { toolSet } from '../loop/tool-catalog.js';
import { askUser, type AskResult, type Question } from './ask-user.js';
import { Clarifications } from './clarify.js';
import type { DomainValidator } from './domain-validators.js';
import { initialPlanState, runNodes, type PlanContext, type PlanEnd, type PlanState } from './nodes.js';
import { DEFAULT_PLAN_NODES } from './plan-nodes.js';
import { routerNode } from './plan-router.js';
import { PlanPrompts } from './plan-prompts.js';
import { TaskState } from './task-state.js';
import { degradedOf, nodeTracer, planStartDraft } from './plan-report.js';
import {
  DEFAULT_MAX_PLAN_STEPS,
  DEFAULT_MAX_REPLANS,
  positive,
  type PlanAgentOptions,
  type PlanRun,
  type RunnerSetup,
} from './plan-options.js';

export {
  DEFAULT_MAX_PLAN_STEPS,
  DEFAULT_MAX_REPLANS,
  type PlanAgentOptions,
  type PlanRun,
} from './plan-options.js';

/**
 * Starts a plan-and-execute run: the model writes a plan, code validates it (schema, graph,
 * references, budget, domain validators), the user is asked what only they can resolve,
 * and the plan runs in dependency order through `executeAction`; one model call answers
 * from the results. Same event log, handle, record and limits as `runAgent`. Programmer
 * mistakes throw here, synchronously.
 */
export function runPlanAgent(options: PlanAgentOptions): PlanRun {
  const deps = withDefaults(options.deps);
  preloadLazyParts(); // off the hot path: usually loaded before a reply or a tool first needs them
  const { limits, maxStepsAuto } = chooseLimits(options.limits, options.query, options.history);
  if (limits.maxSteps < 2) throw new RangeError('a plan run needs maxSteps ≥ 2 (a plan and an answer)');
  const maxPlanSteps = positive('maxPlanSteps', options.maxPlanSteps ?? DEFAULT_MAX_PLAN_STEPS, 1);
  const maxReplans = positive('maxReplans', options.maxReplans ?? DEFAULT_MAX_REPLANS, 0);
  const { registry, specs, names } = toolSet(options.tools);
  const timeouts = timeoutHierarchy(limits, options.tools);
  const runId = options.runId ?? deps.newId();
  const { log, replay } = openRunLog(runId, deps, options);
  const blobStore = options.blobStore ?? defaultBlobStore;
  const principal = options.principal ?? ANONYMOUS;
  const abort = new RunAbort();
  abort.follow(options.signal);
  const deadlineMs = deadlineLeft(limits.deadlineMs, replay);
  const onDeadline = (): void => abort.deadlinePassed();
  const deadline =
    replay === undefined
      ? new RunDeadline(deps, deadlineMs, onDeadline)
      : replayDeadline(deps, limits.deadlineMs, replay, onDeadline);
  abort.holdDeadline(deadline);
  const approvals = new Approvals(principal, deps.now, deps);
  const clarifications = new Clarifications(principal, deps.now, deps);
  const taskState = new TaskState(options.taskState);
  const act = runActEnv(registry, principal, runId, abort, limits, blobStore, deps, options.policies);
  const model = replayInto(replay, { model: options.model, act, abort, approvals, clarifications });
  const runner = new PlanRunner({
    options,
    model,
    deadlineMs,
    deps,
    limits,
    maxStepsAuto,
    timeouts,
    specs,
    names,
    log,
    abort,
    deadline,
    approvals,
    clarifications,
    taskState,
    maxPlanSteps,
    maxReplans,
    act,
  });
  const handle = new RunHandle(runId, log, abort, blobStore, approvals, clarifications);
  const ended = (): void => {
    abort.release(); // its deadline and the caller's signal
    handle.loopEnded();
  };
  void runner.run().then(ended, (thrown: unknown) => {
    if (!log.closed) {
      log.append({
        type: 'error',
        code: 'INTERNAL',
        message: `reins plan run failed: ${describeThrown(thrown)}`,
      });
      log.append({ type: 'done', status: 'error', steps: 0, usage: NO_USAGE, durationMs: 0 });
    }
    ended();
  });
  return Object.defineProperty(handle, 'taskState', {
    get: () => taskState.snapshot(),
    enumerable: true,
  }) as unknown as PlanRun;
}

class PlanRunner implements PlanContext, ToolProgressSink, ApprovalGate {
  readonly query: string;
  readonly instructions: string | undefined;
  readonly answer: AnswerFormat | undefined;
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
  readonly #setup: RunnerSetup;
  readonly #model: Model;
  readonly #started: number;
  readonly #slot: ModelCallSlot = {};
  readonly #prompts: PlanPrompts;
  #modelSteps = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  readonly #onAbort = (): void => {
    this.#slot.settle?.(ABORTED);
    this.#setup.approvals.close();
    this.#setup.clarifications.close();
  };

  constructor(setup: RunnerSetup) {
    this.#setup = setup;
    const { options } = setup;
    this.query = options.query;
    this.instructions = options.instructions;
    this.answer = options.answer;
    this.specs = setup.specs;
    this.registry = setup.act.registry;
    this.limits = setup.limits;
    this.log = setup.log;
    this.deps = setup.deps;
    this.act = setup.act;
    this.act.progress = this;
    this.act.approval = this;
    this.taskState = setup.taskState;
    this.validators = options.validators ?? [];
    this.maxPlanSteps = setup.maxPlanSteps;
    this.maxReplans = setup.maxReplans;
    this.#model = setup.model;
    this.#prompts = new PlanPrompts(options.recordPrompts !== false);
    this.#started = setup.deps.now();
    this.#startedAt = this.#started;
  }

  get modelSteps(): number {
    return this.#modelSteps;
  }

  get aborted(): boolean {
    return this.#setup.abort.aborted;
  }

  timeLeftMs(): number {
    return this.#setup.deadlineMs - (this.deps.now() - this.#started - this.#pausedMs);
  }

  /** When the run started (its `start` event: a rebuilt run keeps its history's), for durations. */
  #startedAt: number;

  // Time spent waiting for the user, which the deadline does not count.
  #pausedMs = 0;

  async run(): Promise<void> {
    const { log } = this;
    const { options, abort } = this.#setup;
    this.#startedAt = log.append(planStartDraft(this.#setup, this.#model)).at;
    abort.addEventListener('abort', this.#onAbort);
    try {
      const trace = nodeTracer(log, () => Math.max(1, this.#modelSteps));
      const state = await runNodes(
        options.nodes ?? DEFAULT_PLAN_NODES,
        options.router ?? routerNode,
        initialPlanState(this.query),
        this,
        trace,
      );
      // A structured answer may need the repair parsers (loaded on first need): before it is checked.
      if (this.answer !== undefined && !repairParsersReady())
        await loadRepairParsers().catch(() => undefined);
      this.#end(state);
    } catch (thrown) {
      const last = log.events.at(-1);
      if (log.closed && last?.type === 'done' && last.status.startsWith('awaiting_')) {
        this.#setup.approvals.close();
        this.#setup.clarifications.close();
        if (log.closed) log.reopen();
      }
      if (!log.closed) {
        log.append({
          type: 'error',
          code: 'INTERNAL',
          message: `reins plan run failed: ${describeThrown(thrown)}`,
        });
        this.#done('error');
      }
    } finally {
      abort.removeEventListener('abort', this.#onAbort);
    }
  }

  #end(state: PlanState): void {
    const end: PlanEnd | undefined = this.aborted ? { kind: 'cancelled' } : state.end;
    const demo = this.#model.demo === true;
    const degraded = degradedOf(state);
    if (end === undefined || end.kind === 'cancelled') {
      const stop = stopReasonOf(this.#setup.abort.reason);
      if (stop !== undefined) return this.#stop(stop, stopNotice(stop, this.limits), degraded);
      return this.#done('cancelled');
    }
    switch (end.kind) {
      case 'answer': {
        const answer = this.answer;
        const shaped =
          answer === undefined || end.intent !== 'answer'
            ? end
            : shapeAnswer(answer, end, () => observationsOf(this.log.events));
        // Steps a limit left undone: the answer says so (by code, whatever the model wrote).
        const limited = state.limited;
        const text =
          limited === undefined
            ? shaped.text
            : `${shaped.text}\n\n${this.#notice(limited.reason, partialStopNotice(this.limits, limited.notRun), limited.notRun)}`;
        this.log.append({
          type: 'message',
          text,
          format: shaped.format,
          intent: end.intent,
          demo,
          degraded,
          ...(shaped.data === undefined || answer === undefined ? {} : { data: shaped.data }),
        });
        return limited === undefined ? this.#done('success') : this.#done('stopped', limited.reason);
      }
      case 'stop':
        return this.#stop(end.reason, end.text, degraded);
      case 'error':
        this.log.append({ type: 'error', code: end.code, message: end.message });
        return this.#done('error');
    }
  }

  #stop(reason: StopReason, text: string, degraded: Degraded[] | undefined): void {
    const demo = this.#model.demo === true;
    const notice = this.#notice(reason, text);
    this.log.append({
      type: 'message',
      text: notice,
      format: 'structured',
      intent: 'notice',
      demo,
      degraded,
    });
    this.#done('stopped', reason);
  }

  /** The notice of a stop in the app's words (`stopNotice`), or the runtime's `text`. */
  #notice(reason: StopReason, text: string, notRun?: readonly string[]): string {
    const { stopNotice: writer } = this.#setup.options;
    return writeStopNotice(writer, { reason, limits: this.limits, query: this.query, text, notRun });
  }

  #done(status: RunStatus, stopReason?: StopReason): void {
    this.log.append({
      type: 'done',
      status,
      ...(stopReason === undefined ? {} : { stopReason }),
      steps: this.#modelSteps,
      usage: { inputTokens: this.#inputTokens, outputTokens: this.#outputTokens },
      durationMs: this.deps.now() - this.#startedAt,
    });
  }

  async callModel(messages: readonly ChatMessage[], finalStep: boolean): Promise<ModelResult> {
    if (this.aborted) return ABORTED;
    const step = ++this.#modelSteps;
    const result = await callModel(
      this.#model,
      {
        messages,
        tools: [],
        signal: this.#setup.abort.signal,
        runId: this.act.runId,
        userKey: userKeyOf(this.act.principal),
        timeoutMs: this.#setup.timeouts.modelTimeoutMs,
        step,
        finalStep,
      },
      this.#slot,
    );
    this.#slot.settle = undefined;
    this.#prompts.called(step, messages, result);
    if (result.usage !== undefined) {
      this.#inputTokens += result.usage.inputTokens;
      this.#outputTokens += result.usage.outputTokens;
    }
    return this.aborted ? ABORTED : result;
  }

  keptPrompt(step: number): PromptSnapshot | undefined {
    return this.#prompts.take(step);
  }

  async ask(question: Question): Promise<AskResult> {
    const pausedAt = this.deps.now();
    const asked = await askUser(
      {
        log: this.log,
        deps: this.deps,
        clarifications: this.#setup.clarifications,
        options: this.#setup.options.clarify ?? {},
        defaultTimeoutMs: this.limits.approvalTtlMs,
        signal: this.#setup.abort,
        deadline: this.#setup.deadline,
        pause: () => this.#done('awaiting_input'),
      },
      question,
    );
    this.#pausedMs += this.deps.now() - pausedAt;
    return asked;
  }

  /** Pauses before a step whose tool needs approval (same protocol as the ReAct loop). */
  requestApproval(actId: string, tool: string, input: unknown): Promise<ApprovalOutcome> {
    const { log, deps, limits } = this;
    const { approvals, deadline } = this.#setup;
    let pausedAt = 0;
    const pause = {
      log,
      deps,
      approvals,
      deadline,
      ttlMs: limits.approvalTtlMs,
      index: Math.max(1, this.#modelSteps),
      aborted: () => this.aborted,
      done: (status: RunStatus) => {
        pausedAt = deps.now();
        this.#done(status);
      },
      onResume: () => (this.#pausedMs += deps.now() - pausedAt),
    };
    return pauseForApproval(pause, actId, tool, input);
  }

  toolProgress(actId: string, tool: string, update: ToolProgress): void {
    appendToolProgress(this.log, this.deps, Math.max(1, this.#modelSteps), actId, tool, update);
  }

  toolSpan(actId: string, tool: string, name: string, startedAt: number, endedAt: number, ok: boolean): void {
    appendToolSpan(this.log, Math.max(1, this.#modelSteps), actId, tool, name, startedAt, endedAt, ok);
  }
}
