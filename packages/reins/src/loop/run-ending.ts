import { shapeAnswer } from '../answer-format.js';
import { describeThrown } from '../errors.js';
import type { RunEvent, RunStatus, StartEvent, StopReason } from '../events.js';
import { NO_USAGE } from '../model.js';
import type { Degraded } from '../observation.js';
import { stopReasonOf } from './abort-reasons.js';
import type { EventLog } from './event-log.js';
import type { Resolution } from './resolve-turn.js';
import type { LoopContext } from './loop-context.js';
import { doneEvent, messageEvent, type MessageFacts } from './step-events.js';
import { observationsOf } from './step-rules.js';
import { stopNotice, writeStopNotice } from './stop-notice.js';

// How a ReAct run ends its log: the final message (an answer, or the notice of a stop), then
// `done` with the run's tallies. Every way out of the loop comes through here.

/** What ending a run reads from its loop: the context and the run's tallies so far. */
export interface RunTally {
  readonly ctx: LoopContext;
  /** When the run started (its `start` event: a run rebuilt after a restart keeps its history's). */
  readonly started: number;
  /** Model steps completed. */
  completed: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Fallbacks that answered during the run; the message says what was lost. */
  readonly degraded: Degraded[] | undefined;
  readonly demo: boolean;
}

/** When a run started: its `start` event's time (a rebuilt history's own, even if it does not begin with it). */
export function runStartOf(events: readonly RunEvent[]): number {
  const first = events[0];
  if (first?.type === 'start') return first.at;
  return (events.find((event): event is StartEvent => event.type === 'start') ?? first)?.at ?? 0;
}

/**
 * The run's last step decided (`at`: when its reasoning ended): its message, then `done`.
 * `waited`: the run waited after that (the repair parsers loading), so `done` reads the clock.
 */
export function endWith(
  run: RunTally,
  step: number,
  next: Extract<Resolution, { kind: 'answer' | 'stop' }>,
  at: number,
  waited = false,
): void {
  run.completed = step;
  if (next.kind === 'answer') {
    const { intent } = next;
    const answer = run.ctx.answer;
    const shaped =
      answer === undefined || intent !== 'answer'
        ? next
        : shapeAnswer(answer, next, () => observationsOf(run.ctx.log.events));
    const { text, format } = shaped;
    const data = answer === undefined ? undefined : shaped.data;
    const said = { text, format, intent, demo: run.demo, degraded: run.degraded, data };
    // An answer as the model gave it is said, and the run done, when its reasoning ended: nothing
    // between takes time worth a clock read (~70 ns here, ~1% of a short run). One shaped by the
    // app (checked, maybe repaired) is said, and done, when that work is over; a run that waited
    // meanwhile is done when it ends.
    const unshaped = shaped === next;
    appendMessage(run, said, unshaped ? at : undefined);
    return appendDone(run, 'success', undefined, unshaped && !waited ? at : undefined);
  }
  appendNotice(run, next.reason, at);
  appendDone(run, 'stopped', next.reason);
}

/** The run's signal aborted: `cancelled`, or `stopped` with a notice when a limit (the deadline) did it. */
export function endAborted(run: RunTally): void {
  const stop = stopReasonOf(run.ctx.act.signal.reason);
  if (stop === undefined) return appendDone(run, 'cancelled');
  appendNotice(run, stop);
  appendDone(run, 'stopped', stop);
}

/** The explanation of a stop (the app's words, else the runtime's), as the run's message (`at` absent: now). */
export function appendNotice(run: RunTally, reason: StopReason, at?: number): void {
  const { limits, prompt } = run.ctx;
  const stop = { reason, limits, query: prompt.query, text: stopNotice(reason, limits) };
  const text = writeStopNotice(run.ctx.stopNotice, stop);
  const said = {
    text,
    format: 'structured',
    intent: 'notice',
    demo: run.demo,
    degraded: run.degraded,
  } as const;
  appendMessage(run, said, at);
}

/** The run's message, at `at` (absent: now). */
function appendMessage(run: RunTally, said: MessageFacts, at: number | undefined): void {
  const { log, deps, act } = run.ctx;
  log.appendStamped(messageEvent(said, act.runId, log.nextSeq, at ?? deps.now()));
}

/** The run's `done`, at `when` (absent: now; one read serves the event's time and the run's duration). */
export function appendDone(run: RunTally, status: RunStatus, stopReason?: StopReason, when?: number): void {
  const { log, deps, act } = run.ctx;
  const at = when ?? deps.now();
  const usage = { inputTokens: run.inputTokens, outputTokens: run.outputTokens };
  const durationMs = at - run.started;
  log.appendStamped(
    doneEvent(status, stopReason, run.completed, usage, durationMs, act.runId, log.nextSeq, at),
  );
}

/** A run whose loop failed even at ending its log: end it here, so no consumer hangs. */
export function lastResort(log: EventLog, thrown: unknown): void {
  if (log.closed) return;
  try {
    log.append({ type: 'error', code: 'INTERNAL', message: `reins loop failed: ${describeThrown(thrown)}` });
    log.append({ type: 'done', status: 'error', steps: 0, usage: NO_USAGE, durationMs: 0 });
  } catch {
    // Nothing is left to tell: `result` reports the incomplete log.
  }
}

/**
 * A bug in the loop, or a value it could not handle: still end the log, with the real step
 * count and usage, so no consumer hangs and the evidence stays true. A pause the run was in
 * ends with it; if even ending the log fails, `lastResort`.
 */
export function endFailed(run: RunTally, thrown: unknown): void {
  const { log, approvals, clarify } = run.ctx;
  try {
    const last = log.events.at(-1);
    if (log.closed && last?.type === 'done' && last.status.startsWith('awaiting_')) {
      approvals?.close(); // nothing may run after this: the pause ends with the run
      clarify?.clarifications.close();
      if (log.closed) log.reopen();
    }
    if (!log.closed) {
      log.append({
        type: 'error',
        code: 'INTERNAL',
        message: `reins loop failed: ${describeThrown(thrown)}`,
      });
      appendDone(run, 'error');
    }
  } catch (again) {
    lastResort(log, again); // failed even at ending its log
  }
}
