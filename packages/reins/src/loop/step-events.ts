import type { DecisionParse, ParseVia } from '../decision/index.js';
import type { ActStep, EventDraft, ObserveStep, ReasonStep } from '../events.js';
import type { RunLimits } from '../limits.js';
import type { ModelResult } from '../model.js';
import type { Observation } from '../observation.js';
import type { TimeoutHierarchy } from '../timeout-hierarchy.js';

// The events of a run's steps as the loop appends them: `start`, then per model step
// `reason`, `act` and `observe`. Hot-path drafts are born with the three slots the log
// stamps (`runId`, `seq`, `at`; see `EventLog.append`).

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
): ReasonStep {
  const toolCalls = result.toolCalls;
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
    toolCalls: toolCalls !== undefined && toolCalls.length > 0 ? toolCalls : undefined,
    // Stamped by the log (`EventLog.append`); here so the event is born with its slots.
    runId,
    seq: -1,
    at: endedAt,
  };
}

/** What a run's `start` event says (ReAct and plan runs alike). */
export interface StartFacts {
  readonly agent: string;
  readonly model: { readonly name: string; readonly demo?: boolean | undefined };
  readonly query: string;
  readonly tools: readonly string[];
  readonly limits: RunLimits;
  readonly timeouts: TimeoutHierarchy;
  readonly conversationId?: string | undefined;
}

/** The `start` event of a run. */
export function startDraft(facts: StartFacts): EventDraft {
  const { agent, model, query, tools, limits, timeouts, conversationId } = facts;
  return {
    type: 'start',
    agent,
    model: model.name,
    demo: model.demo === true,
    query,
    tools,
    limits,
    timeouts,
    ...(conversationId === undefined ? {} : { conversationId }),
  };
}

/** The `act` event of a call: it starts and ends at `at` (the act is the decision to call). */
export function actDraft(
  step: number,
  actId: string,
  tool: string,
  input: unknown,
  at: number,
  runId: string,
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
    runId, // the log's stamp, in the event's own slots (see `EventLog.append`)
    seq: -1,
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
    seq: -1,
    at: endedAt,
  };
}
