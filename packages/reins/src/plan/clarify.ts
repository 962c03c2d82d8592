import type { ErrorCode } from '../errors.js';
import type { ClarifyCandidate, ResumeOutcome } from '../events.js';
import type { Principal } from '../principal.js';
import { PendingWait, type WaitTimers } from '../loop/pending-wait.js';

/**
 * How a run asks its user (opt-in for ReAct agents; on for plan agents with these defaults):
 * at most `maxQuestions` per run (default 2); each waits `timeoutMs` (default: the run's
 * `approvalTtlMs`); when one more question would be needed, or one times out, `onTimeout`
 * decides: `'stop'` ends the run `stopped` (`unanswered`), saying why; `{default}` answers
 * with that value and goes on.
 */
export interface ClarifyOptions {
  readonly maxQuestions?: number;
  readonly timeoutMs?: number;
  readonly onTimeout?: 'stop' | { readonly default: string };
}

export const DEFAULT_MAX_QUESTIONS = 2;

/** The user's answer: which question, and the value (a candidate's `value`, or free text). */
export interface ClarifyAnswer {
  readonly questionId: string;
  readonly value: string;
  /** The authenticated user answering (the server passes it); when given it must be the run's user. */
  readonly by?: Principal;
}

export type ClarifyAnswerResult =
  | { readonly ok: true; readonly questionId: string }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

/** A question waiting for its user. */
export interface PendingQuestion {
  readonly questionId: string;
  readonly question: string;
  readonly field?: string | undefined;
  readonly stepId?: string | undefined;
  readonly candidates: readonly ClarifyCandidate[];
  readonly expiresAt: number;
}

export type ClarifyOutcome =
  | { readonly kind: 'answered'; readonly value: string; readonly at: number }
  | { readonly kind: 'expired'; readonly at: number }
  | { readonly kind: 'cancelled'; readonly at: number };

/** Longest answer accepted (characters). */
export const MAX_ANSWER_CHARS = 500;

/**
 * The questions of one run: at most one pending at a time, each answerable once, by the
 * run's own user, before it expires. Mirrors `Approvals`.
 */
export class Clarifications {
  readonly #wait: PendingWait<PendingQuestion, Extract<ClarifyOutcome, { kind: 'answered' }>>;
  /** Questions asked so far in the run. */
  asked = 0;
  /** The questions the configured default has answered (`askUser`): each gets it once. */
  readonly defaulted = new Set<string>();

  constructor(
    private readonly owner: Principal,
    now: () => number,
    timers: WaitTimers,
  ) {
    this.#wait = new PendingWait(now, timers, 'a question');
  }

  get pending(): PendingQuestion | undefined {
    const p = this.#wait.request;
    if (p === undefined) return undefined;
    const { questionId, question, field, stepId, candidates, expiresAt } = p;
    return { questionId, question, field, stepId, candidates, expiresAt };
  }

  /** Opens a question; resolves when answered, expired or cancelled. `onSettled` runs synchronously then. */
  wait(question: PendingQuestion, onSettled: (outcome: ClarifyOutcome) => void): Promise<ClarifyOutcome> {
    const opened = this.#wait.open(question, onSettled);
    this.asked++;
    return opened;
  }

  answer(answer: ClarifyAnswer): ClarifyAnswerResult {
    const pending = this.#wait.request;
    if (pending === undefined || pending.questionId !== answer.questionId) {
      const mine = answer.by === undefined || answer.by.id === this.owner.id;
      if (this.#wait.lastExpired?.questionId === answer.questionId && mine)
        return { ok: false, code: 'TIMEOUT', message: 'the question expired' };
      return {
        ok: false,
        code: 'NOT_FOUND',
        message: 'no question is pending with this id (answered, expired or never asked)',
      };
    }
    if (answer.by !== undefined && answer.by.id !== this.owner.id) {
      return {
        ok: false,
        code: 'PERMISSION_DENIED',
        message: "only the run's own user can answer its questions",
      };
    }
    const value = typeof answer.value === 'string' ? answer.value.trim() : '';
    if (value === '' || value.length > MAX_ANSWER_CHARS) {
      return {
        ok: false,
        code: 'INVALID_PARAMETER',
        message: `the answer must be a non-blank string of at most ${MAX_ANSWER_CHARS} characters`,
      };
    }
    if (this.#wait.answer((at) => ({ kind: 'answered', value, at })) === 'expired') {
      return { ok: false, code: 'TIMEOUT', message: 'the question expired' };
    }
    return { ok: true, questionId: answer.questionId };
  }

  /** The run was cancelled: a pending question ends now, unanswered. */
  close(): void {
    this.#wait.close();
  }

  /** A rebuilt run: questions settled in its history settle the same way again (see `RunReplay`). */
  replaying(outcomeOf: (questionId: string) => ResumeOutcome | undefined): void {
    this.#wait.recorded = (q) => outcomeOf(q.questionId) as ClarifyOutcome | undefined;
  }
}
