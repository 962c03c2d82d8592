import type { ClarifyCandidate, ClarifyEvent } from '../events.js';
import type { EventLog } from '../loop/event-log.js';
import type { AbortLike } from '../loop/run-abort.js';
import type { RunDeps } from '../util/deps.js';
import type { ClarifyOptions, ClarifyOutcome, Clarifications } from './clarify.js';
import { DEFAULT_MAX_QUESTIONS } from './clarify.js';

export interface AskEnv {
  readonly log: EventLog;
  readonly deps: RunDeps;
  readonly clarifications: Clarifications;
  readonly options: ClarifyOptions;
  /** How long a question waits when `options.timeoutMs` is not set. */
  readonly defaultTimeoutMs: number;
  readonly signal: AbortLike;
  /** The run's deadline, stopped while the user thinks. */
  readonly deadline?: { pause(): void; resume(): void } | undefined;
  /** Appends `done {awaiting_input}` with the run's counters. */
  pause(): void;
}

export interface Question {
  readonly question: string;
  readonly field?: string | undefined;
  readonly stepId?: string | undefined;
  readonly candidates: readonly ClarifyCandidate[];
}

/** What to go on with: the user's (or the default) answer, a stop (and why), or a cancel. */
export type AskResult =
  | { readonly kind: 'value'; readonly value: string; readonly defaulted: boolean }
  | { readonly kind: 'stop'; readonly why: string }
  | { readonly kind: 'cancelled' };

/**
 * Asks the user one question: `clarify` then `done {awaiting_input}`, the deadline stopped;
 * resumes in the same log when the answer comes, the question expires or the run is cancelled.
 * Over the cap of questions nothing is asked: the default is used, or the run is to stop.
 */
export async function askUser(env: AskEnv, q: Question): Promise<AskResult> {
  const { log, deps, clarifications, options } = env;
  const max = options.maxQuestions ?? DEFAULT_MAX_QUESTIONS;
  const fallback = typeof options.onTimeout === 'object' ? options.onTimeout.default : undefined;
  // The default answers a question once: asked again, the default did not resolve it (a plan
  // patched with a value its validator refuses would otherwise ask, default and refuse forever).
  const byDefault = (): AskResult => {
    const key = questionKey(q);
    if (clarifications.defaulted.has(key)) {
      return {
        kind: 'stop',
        why: `Stopped: the default answer did not resolve the question, and it came up again: ${q.question}`,
      };
    }
    clarifications.defaulted.add(key);
    return { kind: 'value', value: fallback as string, defaulted: true };
  };
  if (clarifications.asked >= max) {
    if (fallback !== undefined) return byDefault();
    return {
      kind: 'stop',
      why: `Stopped: I asked ${max} question(s) already, the most this run may ask, and still need an answer to: ${q.question}`,
    };
  }
  if (env.signal.aborted || log.closed) return { kind: 'cancelled' };
  // The logged event's id and expiry: a run rebuilt after a restart gets its history's back.
  const { questionId, expiresAt } = log.append({
    type: 'clarify',
    questionId: deps.newId(),
    question: q.question,
    field: q.field,
    candidates: q.candidates,
    stepId: q.stepId,
    expiresAt: deps.now() + (options.timeoutMs ?? env.defaultTimeoutMs),
  }) as ClarifyEvent;
  const answered: Promise<ClarifyOutcome> = clarifications.wait(
    {
      questionId,
      question: q.question,
      field: q.field,
      stepId: q.stepId,
      candidates: q.candidates,
      expiresAt,
    },
    (outcome) => {
      log.reopen();
      log.append({ type: 'resume', questionId, outcome });
      env.deadline?.resume();
    },
  );
  env.pause();
  env.deadline?.pause();
  const outcome = await answered;
  if (outcome.kind === 'answered') return { kind: 'value', value: outcome.value, defaulted: false };
  if (outcome.kind === 'cancelled' || env.signal.aborted) return { kind: 'cancelled' };
  if (fallback !== undefined) return byDefault();
  return { kind: 'stop', why: `Stopped: no answer came in time to the question: ${q.question}` };
}

/** What makes two questions the same one: the step and field they are about, else their text. */
function questionKey(q: Question): string {
  return q.stepId !== undefined && q.field !== undefined
    ? `${q.stepId}\u0000${q.field}`
    : `\u0000${q.question}`;
}
