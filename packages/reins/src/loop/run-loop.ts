import { parseDecision, type DecisionParse, type ParseVia } from '../decision/index.js';
import { describeThrown } from '../errors.js';
import type { ReasonStep, RunStatus, StopReason } from '../events.js';
import type { RunLimits } from '../limits.js';
import type { Model, ToolSpec } from '../model.js';
import type { Observation } from '../observation.js';
import type { RunDeps } from '../util/deps.js';
import { RUN_DEADLINE } from './abort-reasons.js';
import { ABORTED, callModel, type ModelCallSlot } from './call-model.js';
import { StepRequest, type DeltaSink, type RunAbort } from './run-abort.js';
import type { EventLog } from './event-log.js';
import type { TimeoutHierarchy } from '../timeout-hierarchy.js';
import { actOn, type ActEnv } from './execute-action.js';
import { sayDecision, type PromptBuilder } from './prompt.js';
import { resolveTurn, type Resolution } from './resolve-turn.js';
import { stopNotice } from './stop-notice.js';

export interface LoopContext {
  readonly agent: string;
  readonly model: Model;
  readonly specs: readonly ToolSpec[];
  readonly toolNames: readonly string[];
  readonly timeouts: TimeoutHierarchy;
  /** The run's abort state (`act.signal` is the same object). */
  readonly abort: RunAbort;
  readonly prompt: PromptBuilder;
  readonly limits: RunLimits;
  readonly act: ActEnv;
  readonly log: EventLog;
  readonly deps: RunDeps;
}

/**
 * The ReAct loop: reason → act → observe, at most `maxSteps` model calls. Appends every
 * event to `ctx.log` and always ends it with `done`. Resolves when the run has ended.
 */
export function runLoop(ctx: LoopContext): Promise<void> {
  return new ReactLoop(ctx).run();
}

/** One run's loop state. A class, not closures: a run in flight holds less (see bench/). */
class ReactLoop implements DeltaSink {
  readonly #ctx: LoopContext;
  readonly #started: number;
  readonly #demo: boolean;
  // What resolveTurn reads, kept as one object instead of a new one per step.
  readonly #turn = { actions: new Map<string, number>(), forcedFinal: false };
  #inputTokens = 0;
  #outputTokens = 0;
  #completed = 0;
  #actStart = 0;
  /** The step whose model call is in flight (0: none), for streamed deltas. */
  #modelStep = 0;
  readonly #modelCall: ModelCallSlot = {};
  // The run's one abort listener: settles the model call in flight (if any) at once.
  readonly #onAbort = (): void => this.#modelCall.settle?.(ABORTED);

  constructor(ctx: LoopContext) {
    this.#ctx = ctx;
    this.#started = ctx.deps.now();
    this.#demo = ctx.model.demo === true;
  }

  async run(): Promise<void> {
    const { model, limits, log, deps, act, prompt } = this.#ctx;
    const signal = act.signal;
    log.append({
      type: 'start',
      agent: this.#ctx.agent,
      model: model.name,
      demo: this.#demo,
      query: prompt.query,
      tools: this.#ctx.toolNames,
      limits,
      timeouts: this.#ctx.timeouts,
    });
    signal.addEventListener('abort', this.#onAbort, { once: true });
    try {
      for (let step = 1; ; step++) {
        if (signal.aborted) return this.#endAborted();
        const finalStep = step >= limits.maxSteps || this.#turn.forcedFinal;
        const reasonStart = deps.now();
        const tools = finalStep ? [] : this.#ctx.specs;
        const request = new StepRequest(
          prompt.messages(finalStep),
          tools,
          step,
          finalStep,
          this.#ctx.timeouts.modelTimeoutMs,
          this.#ctx.act.runId,
          this.#ctx.abort,
          this,
        );
        this.#modelStep = step;
        const result = await callModel(model, request, this.#modelCall);
        this.#modelStep = 0;
        this.#modelCall.settle = undefined;
        if (result.usage !== undefined) {
          this.#inputTokens += result.usage.inputTokens;
          this.#outputTokens += result.usage.outputTokens;
        }
        if (signal.aborted) return this.#endAborted();
        if (!result.ok) {
          const { code, message } = result.error;
          const text = `model ${model.name} failed at step ${step}: ${code}: ${message}`;
          log.append({ type: 'error', code: 'MODEL_FAILED', message: text });
          return this.#done('error');
        }

        const parse = parseDecision(result.text);
        const reasonEnd = deps.now();
        log.append(
          {
            type: 'step',
            phase: 'reason',
            index: step,
            startedAt: reasonStart,
            endedAt: reasonEnd,
            durationMs: reasonEnd - reasonStart,
            model: result.model ?? model.name,
            toolsOffered: !finalStep,
            raw: result.text,
            usage: result.usage,
            parse: parseSummary(parse),
            decision: parse.ok ? parse.value : undefined,
          },
          reasonEnd,
        );

        const next = resolveTurn(parse, this.#turn, finalStep);
        if (next.kind === 'answer' || next.kind === 'stop') return this.#end(step, next);

        const acted = this.#act(step, next, reasonEnd);
        const observation = acted instanceof Promise ? await acted : acted;
        this.#observed(step, observation);
        if (signal.aborted) return this.#endAborted();
        this.#completed = step;
        // Clean JSON is remembered as written; anything else as the normalized decision.
        prompt.remember(
          parse.ok && parse.via !== 'clean' ? sayDecision(parse.value) : result.text,
          observation,
        );
      }
    } catch (thrown) {
      // A bug in the loop, or a value it could not handle: still end the log, with the real
      // step count and usage, so no consumer hangs and the evidence stays true.
      if (!log.closed) {
        log.append({
          type: 'error',
          code: 'INTERNAL',
          message: `reins loop failed: ${describeThrown(thrown)}`,
        });
        this.#done('error');
      }
    } finally {
      signal.removeEventListener('abort', this.#onAbort);
    }
  }

  /**
   * Appends the act event and acts, from `actStart` (when the reasoning ended); synchronous
   * when the tool answered synchronously.
   */
  #act(
    step: number,
    next: Extract<Resolution, { kind: 'act' | 'refuse_repeat' }>,
    actStart: number,
  ): Observation | Promise<Observation> {
    const { log, deps, act } = this.#ctx;
    const actId = deps.newId();
    this.#actStart = actStart;
    const { tool, input } = next;
    log.append(
      {
        type: 'step',
        phase: 'act',
        index: step,
        actId,
        tool,
        input,
        startedAt: actStart,
        endedAt: actStart,
        durationMs: 0,
      },
      actStart,
    );
    if (next.kind === 'act') {
      this.#turn.actions.set(next.key, step);
      return actOn({ actId, tool, input }, act, actStart);
    }
    this.#turn.forcedFinal = true;
    const message = `${tool} was already called with this input at step ${next.firstStep}; its result was shown then. Give your final answer now.`;
    return {
      actId,
      tool,
      status: 'rejected',
      error: { code: 'REPEATED_ACTION', message, layer: 'guard' },
      source: 'runtime',
      durationMs: 0,
    };
  }

  #observed(step: number, observation: Observation): void {
    const endedAt = this.#actStart + observation.durationMs; // no second clock read
    this.#ctx.log.append(
      {
        type: 'step',
        phase: 'observe',
        index: step,
        actId: observation.actId,
        observation,
        startedAt: this.#actStart,
        endedAt,
        durationMs: observation.durationMs,
      },
      endedAt,
    );
  }

  /** A streaming model's text delta, as a live `progress` event of the step it belongs to. */
  modelDelta(step: number, text: string): void {
    if (step !== this.#modelStep || this.#ctx.log.closed || typeof text !== 'string' || text === '') return;
    const at = this.#ctx.deps.now();
    this.#ctx.log.append(
      {
        type: 'step',
        phase: 'progress',
        index: step,
        source: 'model',
        text,
        startedAt: at,
        endedAt: at,
        durationMs: 0,
      },
      at,
    );
  }

  #end(step: number, next: Extract<Resolution, { kind: 'answer' | 'stop' }>): void {
    this.#completed = step;
    if (next.kind === 'answer') {
      const { text, format, intent } = next;
      this.#ctx.log.append({ type: 'message', text, format, intent, demo: this.#demo });
      return this.#done('success');
    }
    this.#notice(next.reason);
    this.#done('stopped', next.reason);
  }

  #endAborted(): void {
    if (this.#ctx.act.signal.reason !== RUN_DEADLINE) return this.#done('cancelled');
    this.#notice('deadline');
    this.#done('stopped', 'deadline');
  }

  #notice(reason: StopReason): void {
    const text = stopNotice(reason, this.#ctx.limits);
    this.#ctx.log.append({ type: 'message', text, format: 'structured', intent: 'notice', demo: this.#demo });
  }

  #done(status: RunStatus, stopReason?: StopReason): void {
    this.#ctx.log.append({
      type: 'done',
      status,
      ...(stopReason === undefined ? {} : { stopReason }),
      steps: this.#completed,
      usage: { inputTokens: this.#inputTokens, outputTokens: this.#outputTokens },
      durationMs: this.#ctx.deps.now() - this.#started,
    });
  }
}

// Shared, frozen: a parsed step's summary is one of three values.
const PARSED: Readonly<Record<ParseVia, ReasonStep['parse']>> = {
  clean: Object.freeze({ ok: true, via: 'clean' }),
  extracted: Object.freeze({ ok: true, via: 'extracted' }),
  repaired: Object.freeze({ ok: true, via: 'repaired' }),
};

function parseSummary(parse: DecisionParse): ReasonStep['parse'] {
  return parse.ok ? PARSED[parse.via] : { ok: false, failure: parse.failure, message: parse.message };
}
