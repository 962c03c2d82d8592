import type { DecisionParse } from '../decision/index.js';
import { loadRepairParsers, repairParsersReady } from '../decision/repair-parsers.js';
import type { ActStep, RunStatus } from '../events.js';
import type { ModelResult } from '../model.js';
import type { Degraded, Observation } from '../observation.js';
import { userKeyOf } from '../principal.js';
import type { ToolProgress } from '../tool.js';
import { isThenable } from '../util/is-thenable.js';
import type { ActEnv, ApprovalGate, ToolProgressSink } from './act-env.js';
import { ActionKeys } from './action-keys.js';
import type { ApprovalOutcome } from './approvals.js';
import { modelBreach, startModelCall } from './call-model.js';
import { actOn } from './execute-action.js';
import { appendReason } from './kept-prompt.js';
import { actManyStep, type FanOutLoop } from './fan-out.js';
import { appendToolProgress, appendToolSpan, modelDeltaDraft } from './live-events.js';
import type { LoopContext, LoopEnd } from './loop-context.js';
import { approvalPauseOf, pauseForApproval } from './pause-for-approval.js';
import { sayDecision } from './prompt.js';
import { askInLoop } from './react-ask.js';
import { resolveTurn, type Resolution, type TurnState } from './resolve-turn.js';
import { StepRequest, type AbortWatcher, type RunAbort, type StepSource } from './run-abort.js';
import {
  appendDone,
  endAborted,
  endFailed,
  endWith,
  lastResort,
  runStartOf,
  type RunTally,
} from './run-ending.js';
import { parseReply } from './parse-reply.js';
import { actDraft, loopStartDraft, observeDraft } from './step-events.js';
import { refusal } from './step-rules.js';

/**
 * The ReAct loop: reason → act → observe, at most `maxSteps` model calls. Appends every
 * event to `ctx.log` and always ends it with `done`. When the run has ended — the loop
 * returned, or an abort ended it during a model call — it releases the run's timers and
 * listeners (`ctx.abort.release()`) and tells `end`, once. `startedAt`: when the run started
 * (now, unless given: the clock read that started its deadline).
 */
export function runLoop(ctx: LoopContext, end: LoopEnd, startedAt?: number): void {
  new ReactLoop(ctx, end, startedAt).run();
}

/**
 * One run's loop state. A class, not closures: a run in flight holds less (see bench/). Its
 * tallies are public for `run-ending.ts` and its act and observe events for `fan-out.ts`.
 * The step in progress lives in fields, and each phase of a step is a method of its own
 * (nothing of a step is held by a frame while its model call is pending); a phase that has
 * to wait returns a promise, made only then.
 * It is its own repeated-action guard (`ActionKeys`, extended: one object per run, not two).
 */
class ReactLoop
  extends ActionKeys
  implements StepSource, ToolProgressSink, ApprovalGate, RunTally, FanOutLoop, AbortWatcher, TurnState
{
  readonly ctx: LoopContext;
  /**
   * When the model step in progress started reasoning — or, between steps, when the next one
   * will if already known: the run's start, or the end of the observation the loop just made
   * (one clock read serves both). Holds the number another event holds (a field that only
   * ever held numbers would keep a box of its own, and its copies in events too).
   */
  #reasonStart: number | undefined;
  /** Whether the model is a demo one (read at the run's end only: no slot per run). */
  get demo(): boolean {
    return this.ctx.model.demo === true;
  }
  /** What resolveTurn reads (`TurnState`) and fan-out adds to: the loop itself. */
  get actions(): ActionKeys {
    return this;
  }
  /** A repeated action was refused: the next step is the forced final one. */
  forcedFinal = false;
  inputTokens = 0;
  outputTokens = 0;
  completed = 0;
  /** Fallbacks that answered during the run; the message says what was lost. */
  degraded: Degraded[] | undefined;
  /** The model step in progress (1-based), and whether it is the last. */
  #step = 0;
  #finalStep = false;
  /** The step whose model call is in flight (0: none): for streamed deltas, and an abort. */
  #modelStep = 0;
  /** The run ended during its model call: the loop stops where the call returns (if ever). */
  #abandoned = false;
  /** Told when the run has ended; `undefined` once told. */
  #end: LoopEnd | undefined;

  constructor(ctx: LoopContext, end: LoopEnd, startedAt: number | undefined) {
    super(ctx.log);
    this.ctx = ctx;
    this.#end = end;
    ctx.act.progress = this;
    if (ctx.approvals !== undefined) ctx.act.approval = this;
    this.#reasonStart = startedAt;
  }

  /** When the run started: its `start` event's time (a run rebuilt after a restart keeps its history's). */
  get started(): number {
    return runStartOf(this.ctx.log.events);
  }

  /** The run's act environment (`ctx.act`, no slot of its own); this loop is the sink of its tools' progress reports. */
  get #actEnv(): ActEnv {
    return this.ctx.act;
  }

  /** The run's abort state, for its step requests' `signal`. */
  get abort(): RunAbort {
    return this.ctx.abort;
  }

  /** The run aborted: it ends at once during a model call (if any); nothing waits for its user any more. */
  runAborted(): void {
    if (this.#modelStep !== 0) this.#stopDuringModelCall();
    this.ctx.approvals?.close(); // a pending approval expires: nothing runs after a cancel
    this.ctx.clarify?.clarifications.close();
  }

  /** The run has ended: its timers and listeners are released, then its handle is told; once (an abandoned model call may return later). */
  finish(): void {
    const end = this.#end;
    if (end === undefined) return;
    this.#end = undefined;
    this.ctx.abort.release();
    end.loopEnded();
  }

  /**
   * Starts the run; calls `finish` when it has ended. Driven by callbacks made once per run, not
   * an async function (an `await` made two closures and a context every model step, ~2% of a run's
   * CPU at 100 in flight, see bench/); steps that answer synchronously run in a loop.
   */
  run(): void {
    if (this.#begin()) this.#steps(false);
    else this.finish();
  }

  // The run's callbacks, made once. A thenable that is not a native promise is adopted by one
  // first (`Promise.resolve`): it then settles the step once, asynchronously, as `await` did.
  readonly #onModel = (result: unknown): void => this.#steps(true, result as ModelResult);
  readonly #onModelThrew = (thrown: unknown): void => this.#steps(true, modelBreach(thrown));
  readonly #onNext = (goOn: boolean): void => (goOn ? this.#steps(false) : this.#stop());
  readonly #onFailed = (thrown: unknown): void => this.#failed(thrown);

  /** Takes the model's `result` for the step in progress (when `answered`), then runs steps until one waits or the run ends. */
  #steps(answered: boolean, result?: ModelResult): void {
    let next: boolean | Promise<boolean> = true;
    try {
      if (answered) next = this.#answered(result as ModelResult);
      while (next === true) {
        const call = this.#ask();
        if (call === undefined) next = false;
        // The adapter's own promise (an abort ends the run from `runAborted` if it never settles).
        else if (isThenable(call)) {
          void Promise.resolve(call).then(this.#onModel, this.#onModelThrew);
          return;
        } else next = this.#answered(call);
      }
    } catch (thrown) {
      this.#failed(thrown);
      return;
    }
    if (next === false) this.#stop();
    else void next.then(this.#onNext, this.#onFailed);
  }

  #failed(thrown: unknown): void {
    endFailed(this, thrown);
    this.#stop();
  }

  /** The run has ended: it stops listening for its abort, and `finish`es. */
  #stop(): void {
    this.ctx.abort.unwatch();
    this.finish();
  }

  /** The `start` event, then the run listens for its abort; false when even that failed (the log is ended). */
  #begin(): boolean {
    const log = this.ctx.log;
    try {
      const start = loopStartDraft(this.ctx);
      const at = this.#reasonStart ?? this.ctx.deps.now();
      log.append(start, at); // a rebuilt run's log hands back its history's start; its first step starts now
      this.#reasonStart = at;
      this.ctx.abort.watch(this);
      return true;
    } catch (thrown) {
      lastResort(log, thrown);
      return false;
    }
  }

  /** Starts the next model step's call: its pending result, or `undefined` when the run has ended. */
  #ask(): ModelResult | PromiseLike<unknown> | undefined {
    const { limits, deps, prompt, model } = this.ctx;
    if (this.#actEnv.signal.aborted) {
      endAborted(this);
      return undefined;
    }
    const step = ++this.#step;
    const finalStep = step >= limits.maxSteps || this.forcedFinal;
    this.#finalStep = finalStep;
    this.#reasonStart ??= deps.now();
    const tools = finalStep ? [] : this.ctx.specs;
    const messages = prompt.messages(finalStep);
    // Kept prompts read earlier steps' messages from this longer array from now on.
    this.ctx.prompts?.sending(messages);
    const request = new StepRequest(
      messages,
      tools,
      step,
      finalStep,
      this.ctx.timeouts.modelTimeoutMs,
      this.#actEnv.runId,
      userKeyOf(this.#actEnv.principal),
      this,
    );
    this.#modelStep = step;
    return startModelCall(model, request);
  }

  /** The model answered: true when the run goes on to its next step, false when it has ended. */
  #answered(result: ModelResult): boolean | Promise<boolean> {
    if (this.#abandoned) return false;
    this.#modelStep = 0;
    if (result.usage !== undefined) {
      this.inputTokens += result.usage.inputTokens;
      this.outputTokens += result.usage.outputTokens;
    }
    if (this.#actEnv.signal.aborted) {
      endAborted(this);
      return false;
    }
    if (!result.ok) {
      const { code, message } = result.error;
      const text = `model ${this.ctx.model.name} failed at step ${this.#step}: ${code}: ${message}`;
      this.ctx.log.append({ type: 'error', code: 'MODEL_FAILED', message: text });
      appendDone(this, 'error');
      return false;
    }
    const parse = parseReply(result, this.ctx.parse);
    if (parse instanceof Promise)
      return parse.then((again) => !this.#abortedMeanwhile() && this.#decided(result, again));
    return this.#decided(result, parse);
  }

  /** After a wait of the loop's own (the repair parsers loading): a run aborted meanwhile ends now. */
  #abortedMeanwhile(): boolean {
    if (!this.#actEnv.signal.aborted) return false;
    endAborted(this);
    return true;
  }

  /** The step's `reason` event, then what its decision leads to. */
  #decided(result: Extract<ModelResult, { ok: true }>, parse: DecisionParse): boolean | Promise<boolean> {
    const { limits, deps } = this.ctx;
    const step = this.#step;
    const finalStep = this.#finalStep;
    const reasonEnd = deps.now();
    const reasonStart = this.#reasonStart as number; // set by #ask
    this.#reasonStart = undefined; // the next step's: from the observation this one makes, or read then
    appendReason(this.ctx, step, reasonStart, reasonEnd, finalStep, result, parse, this.#actEnv.runId);

    const next = resolveTurn(parse, this, finalStep, limits.maxCallsPerStep);
    if (next.kind === 'answer' || next.kind === 'stop') {
      // Only on the way out: a run without `clarify` pays nothing per step for it.
      if (next.kind === 'answer' && next.intent === 'ask' && this.ctx.clarify !== undefined && !finalStep) {
        return this.#clarify(step, next.text, result.text);
      }
      // A structured answer may need the repair parsers: loaded before it is checked.
      if (this.ctx.answer !== undefined && !repairParsersReady())
        return this.#endLoaded(step, next, reasonEnd);
      endWith(this, step, next, reasonEnd);
      return false;
    }
    if (next.kind === 'act_many') return actManyStep(this, step, next.calls, reasonEnd, result, parse);
    const acted = this.#actOne(step, next, reasonEnd);
    if (acted instanceof Promise) return acted.then((o) => this.#afterAct(o, reasonEnd, result, parse));
    return this.#afterAct(acted, reasonEnd, result, parse);
  }

  async #endLoaded(
    step: number,
    next: Extract<Resolution, { kind: 'answer' | 'stop' }>,
    at: number,
  ): Promise<boolean> {
    await loadRepairParsers().catch(() => undefined);
    if (!this.#abortedMeanwhile()) endWith(this, step, next, at, true);
    return false;
  }

  /** The step's one call was observed: its `observe` event, and the step goes into the prompt. */
  #afterAct(
    observation: Observation,
    reasonEnd: number,
    result: Extract<ModelResult, { ok: true }>,
    parse: DecisionParse,
  ): boolean {
    const step = this.#step;
    this.#reasonStart = this.observed(step, observation, reasonEnd);
    if (this.#actEnv.signal.aborted) {
      endAborted(this);
      return false;
    }
    this.completed = step;
    // Clean JSON is remembered as written; anything else as the normalized decision.
    this.ctx.prompt.remember(
      parse.ok && parse.via !== 'clean' ? sayDecision(parse.value) : result.text,
      observation,
    );
    return true;
  }

  /** Appends the act event and acts, from `actStart` (when the reasoning ended); synchronous when the tool is. */
  #actOne(
    step: number,
    next: Extract<Resolution, { kind: 'act' | 'refuse_repeat' }>,
    actStart: number,
  ): Observation | Promise<Observation> {
    const { tool, input } = next;
    const act = this.actEvent(step, tool, input, actStart);
    const actId = act.actId;
    if (next.kind === 'act') {
      this.actions.add(next.hash, act);
      return actOn({ actId, tool, input }, this.#actEnv, actStart);
    }
    this.forcedFinal = true;
    const message = `${tool} was already called with this input at step ${next.firstStep}; its result was shown then. Give your final answer now.`;
    return refusal(actId, tool, 'REPEATED_ACTION', message);
  }

  /** Logs an act with a new id; returns the event as logged (a rebuilt run's is its history's). */
  actEvent(step: number, tool: string, input: unknown, actStart: number): ActStep {
    const { log, deps } = this.ctx;
    const draft = actDraft(step, deps.newId(), tool, input, actStart, this.#actEnv.runId, log.nextSeq);
    return log.appendStamped(draft) as ActStep;
  }

  /** Appends the observe event; returns when it ended. */
  observed(step: number, observation: Observation, actStart: number): number {
    if (observation.degraded !== undefined) (this.degraded ??= []).push(observation.degraded);
    const endedAt = actStart + observation.durationMs; // no second clock read
    const log = this.ctx.log;
    log.appendStamped(observeDraft(step, observation, actStart, endedAt, this.#actEnv.runId, log.nextSeq));
    return endedAt;
  }

  /** Pauses the run before a call that needs approval (see `pauseForApproval`). */
  requestApproval(actId: string, tool: string, input: unknown): Promise<ApprovalOutcome> {
    const pause = {
      ...approvalPauseOf(this.ctx, this.completed + 1),
      done: (status: RunStatus) => appendDone(this, status),
    };
    return pauseForApproval(pause, actId, tool, input);
  }

  /** Pauses the run on an `ask` (see `askInLoop`): true when it goes on with the answer. */
  async #clarify(step: number, question: string, said: string): Promise<boolean> {
    this.completed = step;
    return askInLoop(this.ctx, question, said, {
      done: (status, stopReason) => appendDone(this, status, stopReason),
      endAborted: () => endAborted(this),
    });
  }

  /** A tool's progress report, as a live `progress` event of the step whose call it is. */
  toolProgress(actId: string, tool: string, update: ToolProgress): void {
    appendToolProgress(this.ctx.log, this.ctx.deps, this.completed + 1, actId, tool, update);
  }

  /** A named part of a tool call, as a live `progress` event (`source: "tool_span"`) of its step. */
  toolSpan(actId: string, tool: string, name: string, startedAt: number, endedAt: number, ok: boolean): void {
    appendToolSpan(this.ctx.log, this.completed + 1, actId, tool, name, startedAt, endedAt, ok);
  }

  /** A streaming model's text delta, as a live `progress` event of the step it belongs to. */
  modelDelta(step: number, text: string): void {
    if (step !== this.#modelStep || this.ctx.log.closed || typeof text !== 'string' || text === '') return;
    const at = this.ctx.deps.now();
    this.ctx.log.append(modelDeltaDraft(step, text, at), at);
  }

  /** An abort during a model call: the run ends now (`cancelled`, or `stopped` at the deadline); the call is abandoned. */
  #stopDuringModelCall(): void {
    this.#modelStep = 0;
    this.#abandoned = true;
    if (!this.ctx.log.closed) endAborted(this);
    this.finish();
  }
}
