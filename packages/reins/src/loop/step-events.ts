import type { DecisionParse, ParseVia } from '../decision/index.js';
import type { AutoSteps } from '../auto-steps.js';
import type {
  ActStep,
  DoneEvent,
  InputCleaned,
  MessageEvent,
  ObserveStep,
  ReasonStep,
  RunStatus,
  StartEvent,
  StopReason,
} from '../events.js';
import type { RunLimits } from '../limits.js';
import type { ModelResult, Usage } from '../model.js';
import type { Observation } from '../observation.js';
import type { PromptSnapshot } from '../prompt-snapshot.js';
import { okObservation } from './observe.js';
import type { TimeoutHierarchy } from '../timeout-hierarchy.js';
import type { LoopContext } from './loop-context.js';

// The events of a run's steps as the loop appends them: `start`, then per model step
// `reason`, `act` and `observe`. Hot-path events are born with the three fields the log
// stamps (`runId`, `seq`, `at`), holding their values (`EventLog.appendStamped`).

// Shared, frozen: a parsed step's summary is one of four values.
const PARSED: Readonly<Record<ParseVia, ReasonStep['parse']>> = {
  clean: Object.freeze({ ok: true, via: 'clean' }),
  extracted: Object.freeze({ ok: true, via: 'extracted' }),
  repaired: Object.freeze({ ok: true, via: 'repaired' }),
  native: Object.freeze({ ok: true, via: 'native' }),
};

export function parseSummary(parse: DecisionParse): ReasonStep['parse'] {
  return parse.ok ? PARSED[parse.via] : { ok: false, failure: parse.failure, message: parse.message };
}

/** The `reason` event of one model step: what the model said, how it parsed, what it cost. */
export function reasonDraft(
  step: number,
  startedAt: number,
  endedAt: number,
  modelName: string,
  toolsOffered: boolean,
  result: Extract<ModelResult, { ok: true }>,
  parse: DecisionParse,
  runId: string,
  seq: number,
  prompt?: PromptSnapshot,
): ReasonStep {
  const toolCalls = result.toolCalls;
  const native = toolCalls !== undefined && toolCalls.length > 0;
  // Two literals, each one fixed shape: a step without native calls or a route (the usual one)
  // has no slots for them (16 bytes of every reason event a run in flight holds).
  if (!native && result.route === undefined) {
    return {
      type: 'step',
      phase: 'reason',
      index: step,
      startedAt,
      endedAt,
      durationMs: endedAt - startedAt,
      model: result.model ?? modelName,
      toolsOffered,
      raw: result.text,
      usage: result.usage,
      parse: parseSummary(parse),
      decision: parse.ok ? parse.value : undefined,
      prompt, // a `KeptPrompt`, built when first read; undefined (left out of the JSON) when not recorded
      // The log's stamps, in place (`EventLog.appendStamped`).
      runId,
      seq,
      at: endedAt,
    };
  }
  return {
    type: 'step',
    phase: 'reason',
    index: step,
    startedAt,
    endedAt,
    durationMs: endedAt - startedAt,
    model: result.model ?? modelName,
    toolsOffered,
    raw: result.text,
    usage: result.usage,
    parse: parseSummary(parse),
    decision: parse.ok ? parse.value : undefined,
    toolCalls: native ? toolCalls : undefined,
    route: result.route,
    prompt,
    runId,
    seq,
    at: endedAt,
  };
}

/** What a run's `start` event says (ReAct and plan runs alike). */
export interface StartFacts {
  readonly agent: string;
  readonly model: {
    readonly name: string;
    readonly demo?: boolean | undefined;
    readonly stack?: string | undefined;
  };
  readonly query: string;
  readonly tools: readonly string[];
  readonly limits: RunLimits;
  readonly timeouts: TimeoutHierarchy;
  readonly conversationId?: string | undefined;
  readonly maxStepsAuto?: AutoSteps | undefined;
  readonly inputCleaned?: InputCleaned | undefined;
}

/**
 * The `start` event of a run (born with the slots the log stamps). Two literals, not one with a
 * conditional spread: each is one fixed object shape with `conversationId` in its place before
 * the slots (the event's key order is its JSON), and no intermediate object per run.
 */
export function startDraft(facts: StartFacts): StartEvent {
  const stack = facts.model.stack;
  // A composed stack says how it is composed (rare path: one spread per run).
  return stack === undefined ? startLiteral(facts) : { ...startLiteral(facts), modelStack: stack };
}

function startLiteral(facts: StartFacts): StartEvent {
  const { agent, model, query, tools, limits, timeouts, conversationId } = facts;
  const name = model.name;
  const demo = model.demo === true;
  if (facts.maxStepsAuto !== undefined || facts.inputCleaned !== undefined) {
    // The rarer runs (an 'auto' step limit, a cleaned query): a shape of their own.
    return {
      type: 'start',
      agent,
      model: name,
      demo,
      query,
      tools,
      limits,
      maxStepsAuto: facts.maxStepsAuto,
      inputCleaned: facts.inputCleaned,
      timeouts,
      conversationId,
      runId: '',
      seq: -1,
      at: 0,
    };
  }
  if (conversationId === undefined) {
    return {
      type: 'start',
      agent,
      model: name,
      demo,
      query,
      tools,
      limits,
      timeouts,
      runId: '',
      seq: -1,
      at: 0,
    };
  }
  return {
    type: 'start',
    agent,
    model: name,
    demo,
    query,
    tools,
    limits,
    timeouts,
    conversationId,
    runId: '',
    seq: -1,
    at: 0,
  };
}

/** The `start` event of a ReAct run, from its loop's context. */
export function loopStartDraft(ctx: LoopContext): StartEvent {
  const { prompt } = ctx;
  return startDraft({
    agent: ctx.agent,
    model: ctx.model,
    query: prompt.query,
    tools: ctx.toolNames,
    limits: ctx.limits,
    timeouts: ctx.timeouts,
    conversationId: ctx.conversationId,
    maxStepsAuto: ctx.maxStepsAuto,
    inputCleaned: prompt.inputCleaned,
  });
}

/** The `act` event of a call: it starts and ends at `at` (the act is the decision to call). */
export function actDraft(
  step: number,
  actId: string,
  tool: string,
  input: unknown,
  at: number,
  runId: string,
  seq: number,
): ActStep {
  return {
    type: 'step',
    phase: 'act',
    index: step,
    actId,
    tool,
    input,
    startedAt: at,
    endedAt: at,
    durationMs: 0,
    runId, // the log's stamps, in place (`EventLog.appendStamped`)
    seq,
    at,
  };
}

/** The `observe` event of a call that started at `startedAt` and ended at `endedAt`. */
export function observeDraft(
  step: number,
  observation: Observation,
  startedAt: number,
  endedAt: number,
  runId: string,
  seq: number,
): ObserveStep {
  return {
    type: 'step',
    phase: 'observe',
    index: step,
    actId: observation.actId,
    observation,
    startedAt,
    endedAt,
    durationMs: observation.durationMs,
    runId,
    seq,
    at: endedAt,
  };
}

/** What a run's `message` event says (its answer, or the notice of a stop). */
export interface MessageFacts {
  readonly text: string;
  readonly format: MessageEvent['format'];
  readonly intent: MessageEvent['intent'];
  readonly demo: boolean;
  readonly degraded: MessageEvent['degraded'];
  /** The structured answer; `undefined`: no `data` key. */
  readonly data?: unknown;
}

/** The run's `message` event, born with the log's stamps (two literals: `data` only when there is some). */
export function messageEvent(facts: MessageFacts, runId: string, seq: number, at: number): MessageEvent {
  const { text, format, intent, demo, degraded, data } = facts;
  if (data === undefined) return { type: 'message', text, format, intent, demo, degraded, runId, seq, at };
  return { type: 'message', text, format, intent, demo, degraded, data, runId, seq, at };
}

/** The run's `done` event, born with the log's stamps (`stopReason` only when it stopped). */
export function doneEvent(
  status: RunStatus,
  stopReason: StopReason | undefined,
  steps: number,
  usage: Usage,
  durationMs: number,
  runId: string,
  seq: number,
  at: number,
): DoneEvent {
  return stopReason === undefined
    ? { type: 'done', status, steps, usage, durationMs, runId, seq, at }
    : { type: 'done', status, stopReason, steps, usage, durationMs, runId, seq, at };
}

/**
 * Event times in tagged fields. V8 keeps a field that has only ever held numbers as a
 * "double" field, with a box of its own per object and field (16 bytes each, ~13 per tool
 * step); a tagged field points at the number, so the fields and events that hold the same
 * time (an act's start, end and `at`, which are also its reason's end and its observation's
 * start) share one box; so do the start event and the loop's own copy of the run's start.
 * Storing a non-number once, here at load, turns these shapes' time fields tagged for good (~350 bytes less per run after three tool steps, see bench/).
 */
function shareTimeBoxes(): void {
  const loosen = (event: object, ...keys: string[]): void => {
    for (const key of keys) (event as Record<string, unknown>)[key] = undefined;
  };
  const times = ['startedAt', 'endedAt', 'durationMs', 'at'];
  const observation = okObservation('', '', undefined, '', 0.5);
  loosen(observation, 'durationMs');
  loosen(actDraft(0, '', '', undefined, 0.5, '', 0), ...times);
  loosen(observeDraft(0, observation, 0.5, 1.5, '', 0), ...times);
  const usage = { inputTokens: 0, outputTokens: 0 };
  const parse = {
    ok: true,
    value: { kind: 'final', thought: '', final: '' },
    via: 'clean',
    raw: '',
  } as const;
  loosen(reasonDraft(0, 0.5, 1.5, '', false, { ok: true, text: '', usage }, parse, '', 0), ...times);
  const said = { text: '', format: 'raw', intent: 'answer', demo: false, degraded: undefined } as const;
  loosen(messageEvent(said, '', 0, 0.5), 'at');
  loosen(messageEvent({ ...said, data: {} }, '', 0, 0.5), 'at');
  loosen(doneEvent('success', undefined, 0, usage, 0.5, '', 0, 1.5), 'durationMs', 'at');
  loosen(doneEvent('stopped', 'max_steps', 0, usage, 0.5, '', 0, 1.5), 'durationMs', 'at');
  // The start event's time is the run's start, which the loop keeps too: one box for both.
  const facts = {
    agent: '',
    model: { name: '' },
    query: '',
    tools: [],
    limits: {},
    timeouts: {},
  } as unknown as StartFacts;
  loosen(startLiteral(facts), 'at');
  loosen(startLiteral({ ...facts, conversationId: '' }), 'at');
  loosen(startLiteral({ ...facts, inputCleaned: {} as InputCleaned }), 'at');
}
shareTimeBoxes();
