import type { DecisionParse, ParseVia } from '../decision/index.js';
import type { ErrorCode } from '../errors.js';
import type { EventDraft, ReasonStep, RunEvent } from '../events.js';
import type { RunLimits } from '../limits.js';
import type { TimeoutHierarchy } from '../timeout-hierarchy.js';
import type { Observation } from '../observation.js';
import type { ModelResult } from '../model.js';
import { needsApproval, type AnyTool } from '../tool.js';

// The small rules of one step that need no loop state: which calls run alone, what a
// refused call observes, how a parse is summarized in the reason event.

/**
 * Whether a call must wait for the calls before it and run alone: it may change something, or
 * it may pause the run for approval — itself or through its fallback.
 */
export function runsAlone(registry: ReadonlyMap<string, AnyTool>, name: string): boolean {
  const tool = registry.get(name);
  if (tool === undefined) return false;
  if (!tool.readOnly || needsApproval(tool)) return true;
  const backup = tool.fallback === undefined ? undefined : registry.get(tool.fallback.tool);
  return backup !== undefined && (!backup.readOnly || needsApproval(backup));
}

/** An observation for a call the runtime refused before any tool ran. */
export function refusal(actId: string, tool: string, code: ErrorCode, message: string): Observation {
  const layer = code === 'INVALID_PARAMETER' ? 'input' : 'guard';
  return {
    actId,
    tool,
    status: 'rejected',
    error: { code, message, layer },
    source: 'runtime',
    durationMs: 0,
  };
}

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

/** The observations of a run so far, in log order (read once, when an answer is finalized). */
export function observationsOf(events: readonly RunEvent[]): Observation[] {
  const found: Observation[] = [];
  for (const event of events) {
    if (event.type === 'step' && event.phase === 'observe') found.push(event.observation);
  }
  return found;
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
