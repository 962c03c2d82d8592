import type {
  ApprovalEvent,
  ClarifyEvent,
  DoneEvent,
  ErrorEvent,
  InputCleaned,
  MessageEvent,
  RunEvent,
  RunStatus,
  StartEvent,
  StepEvent,
  StopReason,
} from './events.js';
import type { AutoSteps } from './auto-steps.js';
import type { RunLimits } from './limits.js';
import type { Degraded } from './observation.js';

export const RUN_RECORD_VERSION = 1;

/** One reason / act / observe entry of the audit record. */
export interface RecordStep {
  readonly index: number;
  readonly phase: Exclude<StepEvent['phase'], 'progress'>;
  readonly act_id?: string;
  readonly started_at: string;
  readonly ended_at: string;
  readonly duration_ms: number;
  readonly detail: Readonly<Record<string, unknown>>;
}

/**
 * The audit record of a run: a versioned, snake_case JSON document derived from the event
 * log (the log is the evidence; this is a projection of it, never a second source).
 */
export interface RunRecord {
  readonly schema_version: typeof RUN_RECORD_VERSION;
  readonly run_id: string;
  readonly agent: string;
  readonly model: string;
  /** How the model is composed (the `start` event's `modelStack`), when it is a composed stack. */
  readonly model_stack?: string | undefined;
  readonly demo: boolean;
  readonly query: string;
  readonly status: RunStatus;
  readonly stop_reason?: StopReason | undefined;
  /** Never blank: the answer, the stop notice, or what went wrong. */
  readonly final_answer: string;
  readonly format: 'structured' | 'raw';
  /** The structured answer (the agent's `AnswerFormat`), when the model's answer passed it. */
  readonly answer_data?: unknown;
  /** Fallbacks that answered for failing tools: the answer is degraded, and this says how. */
  readonly degraded?: readonly Degraded[] | undefined;
  readonly intent: 'answer' | 'ask' | 'notice' | 'error' | 'cancelled' | 'approval' | 'clarify';
  /** While the run waits for its user: the call, its exact input and what an approval must name. */
  readonly pending_approval?:
    | {
        readonly act_id: string;
        readonly tool: string;
        readonly input: unknown;
        readonly input_hash: string;
        readonly expires_at: string;
      }
    | undefined;
  /** While the run waits for its user's answer (`awaiting_input`): the question and its candidates. */
  readonly pending_question?:
    | {
        readonly question_id: string;
        readonly question: string;
        readonly field?: string | undefined;
        readonly step_id?: string | undefined;
        readonly candidates: readonly { readonly value: string; readonly label: string }[];
        readonly expires_at: string;
      }
    | undefined;
  readonly error?: { readonly code: string; readonly message: string } | undefined;
  readonly limits: RunLimits;
  /** `maxSteps: 'auto'`: the limit chosen from the query (`limits.maxSteps`) and why. */
  readonly max_steps_auto?: AutoSteps | undefined;
  /** The markers neutralized in the prompt's copy of `query` (which is kept as typed). */
  readonly input_cleaned?: InputCleaned | undefined;
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number };
  readonly model_steps: number;
  readonly started_at: string;
  readonly ended_at: string;
  readonly duration_ms: number;
  readonly steps: readonly RecordStep[];
}

export function buildRunRecord(events: readonly RunEvent[]): RunRecord {
  // One pass over the log: this runs once for every run whose result is read.
  let start: StartEvent | undefined;
  let done: DoneEvent | undefined;
  let message: MessageEvent | undefined;
  let error: ErrorEvent | undefined;
  let approval: ApprovalEvent | undefined;
  let clarify: ClarifyEvent | undefined;
  const steps: RecordStep[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'step':
        if (event.phase !== 'progress') steps.push(recordStep(event));
        break;
      case 'start':
        start ??= event;
        break;
      case 'message':
        message = event;
        break;
      case 'error':
        error = event;
        break;
      case 'approval':
        approval = event;
        break;
      case 'clarify':
        clarify = event;
        break;
      case 'done':
        done = event;
        break;
    }
  }
  if (start === undefined || done === undefined) {
    throw new Error('buildRunRecord needs a complete log (start … done)');
  }
  const paused = done.status === 'awaiting_approval' ? approval : undefined;
  const asking = done.status === 'awaiting_input' ? clarify : undefined;
  // What the run ended with, as plain locals: the record is one literal with every key (a
  // spread of the answer in the middle of it made V8 build it key by key, ~20% of the record's
  // cost). Keys that do not apply are undefined, which JSON leaves out, as it did the keys.
  let final_answer: string;
  let format: RunRecord['format'] = 'structured';
  let intent: RunRecord['intent'];
  let degraded: RunRecord['degraded'];
  let answer_data: unknown;
  if (asking !== undefined) {
    final_answer = asking.question;
    intent = 'clarify';
  } else if (paused !== undefined) {
    final_answer = `Waiting for the user's approval to run ${paused.tool} with the input shown.`;
    intent = 'approval';
  } else if (message !== undefined) {
    final_answer = message.text;
    format = message.format;
    intent = message.intent;
    degraded = message.degraded;
    answer_data = message.data;
  } else if (error !== undefined) {
    final_answer = error.message;
    intent = 'error';
  } else {
    final_answer = `The run was cancelled after ${done.steps} completed step(s).`;
    intent = 'cancelled';
  }
  const record: RunRecord = {
    schema_version: RUN_RECORD_VERSION,
    run_id: start.runId,
    agent: start.agent,
    model: start.model,
    model_stack: start.modelStack, // undefined (so absent from the JSON) unless a composed stack
    demo: start.demo,
    query: start.query,
    status: done.status,
    stop_reason: done.stopReason, // undefined (so absent from the JSON) unless stopped
    final_answer,
    format,
    intent,
    degraded,
    answer_data,
    error: error === undefined ? undefined : { code: error.code, message: error.message },
    pending_approval:
      paused === undefined
        ? undefined
        : {
            act_id: paused.actId,
            tool: paused.tool,
            input: paused.input,
            input_hash: paused.inputHash,
            expires_at: iso(paused.expiresAt),
          },
    pending_question:
      asking === undefined
        ? undefined
        : {
            question_id: asking.questionId,
            question: asking.question,
            field: asking.field,
            step_id: asking.stepId,
            candidates: asking.candidates,
            expires_at: iso(asking.expiresAt),
          },
    limits: start.limits,
    max_steps_auto: start.maxStepsAuto,
    input_cleaned: start.inputCleaned,
    usage: { input_tokens: done.usage.inputTokens, output_tokens: done.usage.outputTokens },
    model_steps: done.steps,
    started_at: iso(start.at),
    ended_at: iso(done.at),
    duration_ms: done.durationMs,
    steps,
  };
  return record;
}

function recordStep(event: Exclude<StepEvent, { phase: 'progress' }>): RecordStep {
  // Literal objects, no spreads: this runs for every step of every run that is recorded.
  const started_at = iso(event.startedAt);
  const ended_at = iso(event.endedAt);
  const { index, phase, durationMs: duration_ms } = event;
  switch (event.phase) {
    case 'reason':
      return { index, phase, started_at, ended_at, duration_ms, detail: reasonDetail(event) };
    case 'act': {
      const detail =
        event.planStepId === undefined
          ? { tool: event.tool, input: event.input }
          : { tool: event.tool, input: event.input, plan_step_id: event.planStepId };
      return { index, phase, act_id: event.actId, started_at, ended_at, duration_ms, detail };
    }
    case 'observe': {
      const detail =
        event.planStepId === undefined
          ? { observation: event.observation }
          : { observation: event.observation, plan_step_id: event.planStepId };
      return { index, phase, act_id: event.actId, started_at, ended_at, duration_ms, detail };
    }
    case 'plan': {
      const detail = {
        version: event.version,
        reason: event.reason,
        plan: event.plan,
        raw: event.raw,
        validation: event.validation,
        model: event.model ?? null,
        usage: event.usage ?? null,
        prompt: event.prompt, // the planner's kept prompt; left out of the JSON when none
      };
      return { index, phase, started_at, ended_at, duration_ms, detail };
    }
  }
}

/** A reason step's detail: one literal in the usual case (a spread makes V8 build it key by key). */
function reasonDetail(event: Extract<StepEvent, { phase: 'reason' }>): Readonly<Record<string, unknown>> {
  const usual = {
    thought: event.decision?.thought ?? null,
    decision: event.decision ?? null,
    parse: event.parse,
    model: event.model,
    raw: event.raw,
    tools_offered: event.toolsOffered,
    usage: event.usage,
    // The kept prompt as the event has it (a delta: `keptPrompts(record)` rebuilds the lists);
    // undefined, so left out of the JSON, when the run does not record prompts.
    prompt: event.prompt,
  };
  const { toolCalls, route } = event;
  if (toolCalls === undefined && route === undefined) return usual;
  // Native calls or a route: in their place, before the prompt.
  const { prompt, ...before } = usual;
  return {
    ...before,
    ...(toolCalls === undefined ? undefined : { tool_calls: toolCalls }),
    ...(route === undefined ? undefined : { route }),
    prompt,
  };
}

// Most events of a run share a millisecond with others: remembered conversions save most of the
// cost (toISOString is ~1 µs). Direct-mapped by millisecond, so 100 interleaved runs whose
// records mix a few milliseconds (their starts and ends) still hit: one slot missed them all.
const ISO_SLOTS = 64;
const isoMs = new Float64Array(ISO_SLOTS).fill(Number.NaN);
const isoText: string[] = new Array<string>(ISO_SLOTS).fill('');
function iso(at: number): string {
  const ms = Math.floor(at);
  const slot = ms & (ISO_SLOTS - 1);
  if (isoMs[slot] !== ms) {
    isoMs[slot] = ms;
    isoText[slot] = new Date(ms).toISOString();
  }
  return isoText[slot] as string;
}
