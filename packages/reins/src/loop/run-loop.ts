import { parseDecision, type DecisionParse } from '../decision/index.js';
import { describeThrown } from '../errors.js';
import type { StopReason } from '../events.js';
import type { RunLimits } from '../limits.js';
import { NO_USAGE, addUsage, type Model, type ModelResult, type ToolSpec, type Usage } from '../model.js';
import type { Observation } from '../observation.js';
import type { RunDeps } from '../util/deps.js';
import type { EventLog } from './event-log.js';
import { executeAction, type ActEnv } from './execute-action.js';
import { sayDecision, type PromptBuilder, type Turn } from './prompt.js';
import { resolveTurn } from './resolve-turn.js';
import { stopNotice } from './stop-notice.js';

/** Why the run's signal aborted: the deadline, or a cancel from outside. */
export const DEADLINE = Symbol('deadline');

export interface LoopContext {
  readonly agent: string;
  readonly model: Model;
  readonly specs: readonly ToolSpec[];
  readonly prompt: PromptBuilder;
  readonly limits: RunLimits;
  readonly act: ActEnv;
  readonly log: EventLog;
  readonly deps: RunDeps;
}

/**
 * The ReAct loop: reason → act → observe, at most `maxSteps` model calls. Appends every
 * event to `ctx.log` and always ends it with `done`. Returns when the run has ended.
 */
export async function runLoop(ctx: LoopContext): Promise<void> {
  const { model, limits, log, deps, act } = ctx;
  const signal = act.signal;
  const started = deps.monotonic();
  const turns: Turn[] = [];
  const actions = new Map<string, number>();
  let forcedFinal = false;
  let usage: Usage = NO_USAGE;
  let completed = 0;
  const demo = model.demo === true;

  const done = (status: 'success' | 'stopped' | 'cancelled' | 'error', stopReason?: StopReason): void => {
    log.append({
      type: 'done',
      status,
      ...(stopReason === undefined ? {} : { stopReason }),
      steps: completed,
      usage,
      durationMs: deps.monotonic() - started,
    });
  };
  const endAborted = (): void => {
    if (signal.reason === DEADLINE) {
      log.append({
        type: 'message',
        text: stopNotice('deadline', limits),
        format: 'structured',
        intent: 'notice',
        demo,
      });
      done('stopped', 'deadline');
    } else done('cancelled');
  };

  log.append({
    type: 'start',
    agent: ctx.agent,
    model: model.name,
    demo,
    query: ctx.prompt.query,
    tools: ctx.specs.map((s) => s.name),
    limits,
  });

  for (let step = 1; ; step++) {
    if (signal.aborted) return endAborted();
    const finalStep = step >= limits.maxSteps || forcedFinal;
    const reasonStart = deps.now();
    const reasonT0 = deps.monotonic();
    const result = await callModel(model, {
      messages: ctx.prompt.messages(turns, finalStep),
      tools: finalStep ? [] : ctx.specs,
      signal,
      step,
      finalStep,
    });
    if (result.usage !== undefined) usage = addUsage(usage, result.usage);
    if (signal.aborted) return endAborted();
    if (!result.ok) {
      log.append({
        type: 'error',
        code: 'MODEL_FAILED',
        message: `model ${model.name} failed at step ${step}: ${result.error.code}: ${result.error.message}`,
      });
      return done('error');
    }

    const parse = parseDecision(result.text);
    log.append({
      type: 'step',
      phase: 'reason',
      index: step,
      startedAt: reasonStart,
      endedAt: deps.now(),
      durationMs: deps.monotonic() - reasonT0,
      toolsOffered: !finalStep,
      raw: result.text,
      usage: result.usage,
      parse: parseSummary(parse),
      ...(parse.ok ? { decision: parse.value } : {}),
    });

    const next = resolveTurn(parse, { actions, forcedFinal }, finalStep);
    if (next.kind === 'answer') {
      completed = step;
      log.append({ type: 'message', text: next.text, format: next.format, intent: next.intent, demo });
      return done('success');
    }
    if (next.kind === 'stop') {
      completed = step;
      log.append({
        type: 'message',
        text: stopNotice(next.reason, limits),
        format: 'structured',
        intent: 'notice',
        demo,
      });
      return done('stopped', next.reason);
    }

    const actId = deps.newId();
    const actStart = deps.now();
    log.append({
      type: 'step',
      phase: 'act',
      index: step,
      actId,
      tool: next.tool,
      input: next.input,
      startedAt: actStart,
      endedAt: actStart,
      durationMs: 0,
    });
    let observation: Observation;
    if (next.kind === 'refuse_repeat') {
      forcedFinal = true;
      observation = {
        actId,
        tool: next.tool,
        status: 'rejected',
        error: {
          code: 'REPEATED_ACTION',
          message: `${next.tool} was already called with this input at step ${next.firstStep}; its result is above. Give your final answer now.`,
          layer: 'guard',
        },
        source: 'runtime',
        durationMs: 0,
      };
    } else {
      actions.set(next.key, step);
      observation = await executeAction({ actId, tool: next.tool, input: next.input }, act);
    }
    log.append({
      type: 'step',
      phase: 'observe',
      index: step,
      actId,
      observation,
      startedAt: actStart,
      endedAt: deps.now(),
      durationMs: observation.durationMs,
    });
    if (signal.aborted) return endAborted();
    completed = step;
    const said = parse.ok ? sayDecision(parse.value) : result.text;
    turns.push({ said, observation, observationText: ctx.prompt.describe(observation) });
  }
}

/** Calls the model, turning a contract breach (throw / reject) into failure data. */
async function callModel(model: Model, request: Parameters<Model['call']>[0]): Promise<ModelResult> {
  try {
    return await model.call(request);
  } catch (thrown) {
    return {
      ok: false,
      error: {
        code: 'INTERNAL',
        message: `model adapter threw (contract breach): ${describeThrown(thrown)}`,
      },
    };
  }
}

function parseSummary(parse: DecisionParse) {
  return parse.ok
    ? ({ ok: true, via: parse.via } as const)
    : ({ ok: false, failure: parse.failure, message: parse.message } as const);
}
