import type { ResumeOutcome, RunEvent } from '../events.js';
import type { RunLimits } from '../limits.js';
import { stopNotice } from './stop-notice.js';
import type { Model, ModelRequest, ModelResult, Usage } from '../model.js';
import type { RunDeps } from '../util/deps.js';
import { RUN_CANCELLED, RUN_OUTCOME_UNKNOWN } from './abort-reasons.js';
import type { Approvals } from './approvals.js';
import { EventLog } from './event-log.js';
import type { ActEnv } from './act-env.js';
import type { EventSink } from './log-writer.js';
import type { RunAbort } from './run-abort.js';
import { RunReplay } from './run-replay.js';
import { RunDeadline } from './run-deadline.js';
import type { Clarifications } from '../plan/clarify.js';

/** Options of a durable run (`runAgent` and `runPlanAgent` alike). */
export interface DurableRunOptions {
  /**
   * Where each event is stored before anyone sees it (e.g. `(events) => store.append(runId,
   * events)`). Events of one tick are written as one batch; `persisted()` on the run resolves
   * once everything so far is stored.
   */
  readonly durable?: {
    readonly sink: EventSink;
    /** After this long failing to store, events are shown anyway; default 5 000 ms. */
    readonly releaseAfterMs?: number;
    readonly onError?: (error: unknown) => void;
  };
  /**
   * The run's recorded log (a run rebuilt after a restart, with the same `runId` and inputs):
   * it is replayed — completed model steps and acts are not done again — and the run goes on
   * from where the log ends (see `RunReplay`). A paused run's log rebuilds the pause.
   */
  readonly history?: readonly RunEvent[];
  /** The conversation this run is a turn of: echoed in its `start` event. */
  readonly conversationId?: string;
}

/** A run's log, durable and/or rebuilt from its history as the options say. */
export function openRunLog(
  runId: string,
  deps: RunDeps,
  options: DurableRunOptions,
): { log: EventLog; replay: RunReplay | undefined } {
  const history = options.history;
  const replay = history === undefined || history.length === 0 ? undefined : new RunReplay(history);
  const durable = options.durable;
  const log = new EventLog(
    runId,
    deps.now,
    durable === undefined
      ? undefined
      : {
          sink: durable.sink,
          writer: {
            ...(durable.releaseAfterMs === undefined ? {} : { releaseAfterMs: durable.releaseAfterMs }),
            ...(durable.onError === undefined ? {} : { onError: durable.onError }),
          },
          setTimer: deps.setTimer,
          clearTimer: deps.clearTimer,
        },
    replay,
  );
  return { log, replay };
}

/** The deadline a run has left: all of it, or for a rebuilt run what its history had not used. */
export function deadlineLeft(deadlineMs: number, replay: RunReplay | undefined): number {
  return replay === undefined ? deadlineMs : Math.max(0, deadlineMs - replay.activeMs);
}

/**
 * A rebuilt run's deadline: what its history left, held until the replay has caught up (a
 * limit must not end the run in the middle of its own history).
 */
export function replayDeadline(
  deps: RunDeps,
  deadlineMs: number,
  replay: RunReplay,
  onExpire: () => void,
): RunDeadline {
  const deadline = new RunDeadline(deps, deadlineLeft(deadlineMs, replay), onExpire, replay.replaying);
  replay.onFinished = () => deadline.release();
  return deadline;
}

/**
 * Connects a rebuilt run's parts to its replay: the model answers from the history first,
 * completed acts are not made again (an act of unknown outcome stops the run), settled pauses
 * settle again. Returns the model the run is to call.
 */
export function replayInto(
  replay: RunReplay | undefined,
  parts: {
    readonly model: Model;
    readonly act: ActEnv;
    readonly abort: RunAbort;
    readonly approvals?: Approvals | undefined;
    readonly clarifications?: Clarifications | undefined;
  },
): Model {
  if (replay === undefined) return parts.model;
  parts.act.replay = replay;
  replay.onUnknown = () => parts.abort.abort(RUN_OUTCOME_UNKNOWN);
  const outcomeOf = (key: string): ResumeOutcome | undefined => {
    const outcome = replay.outcome(key);
    // A pause that ended in a cancel ended the run with it: it is cancelled again, so nothing
    // the history did not do (a model call, a tool) runs after it.
    if (outcome?.kind === 'cancelled') parts.abort.abort(RUN_CANCELLED);
    return outcome;
  };
  parts.approvals?.replaying(outcomeOf);
  parts.clarifications?.replaying(outcomeOf);
  return replayingModel(parts.model, replay);
}

/** A model that gives the history's replies first, then calls `model`. */
function replayingModel(model: Model, replay: RunReplay): Model {
  return {
    name: model.name,
    ...(model.demo === undefined ? {} : { demo: model.demo }),
    call(request: ModelRequest): Promise<ModelResult> {
      const recorded = replay.nextReply();
      return recorded === undefined ? model.call(request) : Promise.resolve(recorded);
    },
  };
}

/** What a run that never logged an event was asked (its stored request): its ending starts its log. */
export interface NeverStarted {
  readonly agent: string;
  readonly query: string;
  readonly conversationId?: string | undefined;
}

/**
 * The events that end a run found running after a restart when resuming is turned off: a
 * notice saying so and `done {stopped, interrupted}` with the history's steps and usage —
 * so the run never silently disappears. `at`: now. A run with no event yet (killed, or not
 * queued, before its `start` was stored) needs `asked`: its ending begins with a `start`
 * from it (model `none`, no tools: nothing was called), so the log reads as a record.
 */
export function interruptedEnding(
  runId: string,
  history: readonly RunEvent[],
  limits: RunLimits,
  at: number,
  asked?: NeverStarted,
): RunEvent[] {
  if (history.length > 0) return endingOf(runId, history, limits, at);
  if (asked === undefined) throw new Error('interruptedEnding: a run with no event needs what it was asked');
  const start: RunEvent = {
    type: 'start',
    agent: asked.agent,
    model: 'none',
    demo: false,
    query: asked.query,
    tools: [],
    limits,
    timeouts: { toolBudgetMs: 0, modelTimeoutMs: 0, deadlineMs: limits.deadlineMs },
    ...(asked.conversationId === undefined ? {} : { conversationId: asked.conversationId }),
    runId,
    seq: 0,
    at,
  };
  return [start, ...endingOf(runId, [start], limits, at)];
}

function endingOf(runId: string, history: readonly RunEvent[], limits: RunLimits, at: number): RunEvent[] {
  const first = history[0];
  let seq = history.length;
  // Model calls: the reason steps (a plan run numbers them with its planner's calls too) and
  // the plan versions a planner wrote; usage as reported (a broken adapter may leave it out).
  let maxIndex = 0;
  let calls = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  const add = (used: Usage | undefined): void => {
    usage.inputTokens += used?.inputTokens ?? 0;
    usage.outputTokens += used?.outputTokens ?? 0;
  };
  for (const event of history) {
    if (event.type !== 'step') continue;
    if (event.phase === 'reason') {
      maxIndex = Math.max(maxIndex, event.index);
      calls++;
      add(event.usage as Usage | undefined);
    } else if (event.phase === 'plan' && event.model !== undefined) {
      calls++;
      add(event.usage);
    }
  }
  const steps = Math.max(maxIndex, calls);
  const demo = first?.type === 'start' && first.demo;
  const notice: RunEvent = {
    type: 'message',
    text: stopNotice('interrupted', limits),
    format: 'structured',
    intent: 'notice',
    demo,
    runId,
    seq: seq++,
    at,
  };
  const done: RunEvent = {
    type: 'done',
    status: 'stopped',
    stopReason: 'interrupted',
    steps,
    usage,
    durationMs: first === undefined ? 0 : at - first.at,
    runId,
    seq,
    at,
  };
  return [notice, done];
}
