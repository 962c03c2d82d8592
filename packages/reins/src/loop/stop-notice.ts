import type { StopReason } from '../events.js';
import type { RunLimits } from '../limits.js';

/** The user-facing explanation of a stop: which limit, in words. */
export function stopNotice(reason: StopReason, limits: RunLimits): string {
  switch (reason) {
    case 'max_steps':
      return `Stopped: the step limit (${limits.maxSteps} model steps) was reached before a final answer.`;
    case 'repeated_action':
      return 'Stopped: the model repeated an action it had already taken and gave no final answer.';
    case 'deadline':
      return `Stopped: the run's deadline (${limits.deadlineMs} ms) passed before a final answer.`;
    case 'invalid_plan':
      return 'Stopped: the plan was still invalid after the re-plans allowed, so nothing was run.';
    case 'unanswered':
      return 'Stopped: a question to the user was needed and could not be asked or was not answered in time.';
    case 'outcome_unknown':
      return 'Stopped: the server restarted while a call that may change something was running. It was not run again, because it may already have taken effect: a person should check its outcome before trying again.';
    case 'interrupted':
      return 'Stopped: the server restarted while this run was going on, and resuming interrupted runs is turned off. Nothing after the last recorded step was done; ask again to start over.';
  }
}

/**
 * The runtime's notice after a plan run's answer that a limit cut short: the steps it left
 * undone. The answer before it uses only the steps that ran.
 */
export function partialStopNotice(limits: RunLimits, notRun: readonly string[]): string {
  return `Stopped early: the step limit (${limits.maxSteps} model steps) left no room to re-plan, so ${notRun.length} step(s) did not run (${notRun.join(', ')}); the answer above uses only what did run.`;
}

/** What a stop notice is written from: handed to an app's `StopNoticeWriter`. */
export interface StopFacts {
  readonly reason: StopReason;
  readonly limits: RunLimits;
  /** The run's question (an app answers in its language). */
  readonly query: string;
  /** The runtime's own notice for this stop (English), with the detail it has. */
  readonly text: string;
  /**
   * A plan run that answered from the steps that ran, then stopped at `reason`: the tools of
   * the steps the stop left undone, in plan order. Absent: the stop left no answer.
   */
  readonly notRun?: readonly string[] | undefined;
}

/**
 * An app's words for a stop — e.g. in the language of the question; `stop.text` is the
 * runtime's (English) notice. The core stays language-neutral: without a writer the notice is
 * `stop.text`, unchanged.
 */
export type StopNoticeWriter = (stop: StopFacts) => string;

/**
 * The notice a user sees for a stop: the writer's text, or the runtime's own when there is no
 * writer, or when it throws or writes nothing (a stop always says why, whatever the app's code
 * does).
 */
export function writeStopNotice(writer: StopNoticeWriter | undefined, stop: StopFacts): string {
  if (writer === undefined) return stop.text;
  try {
    const text = writer(stop);
    return typeof text === 'string' && text.trim() !== '' ? text : stop.text;
  } catch {
    return stop.text;
  }
}
