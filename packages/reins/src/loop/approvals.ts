import type { ErrorCode } from '../errors.js';
import type { ResumeOutcome } from '../events.js';
import type { Principal } from '../principal.js';
import { canonicalJson } from '../util/canonical-json.js';
import { PendingWait, type WaitTimers } from './pending-wait.js';

/** What the approver sends back: bound to the act and the exact input it was shown. */
export interface ApprovalDecision {
  /** The authenticated approver (from the server, never from the model): must be the run's user. */
  readonly by: Principal;
  readonly actId: string;
  /** `inputHash` of the `approval` event: the input approved is the input that runs. */
  readonly inputHash: string;
  readonly approve: boolean;
}

export type ApprovalAnswer =
  | { readonly ok: true; readonly actId: string; readonly approved: boolean }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

/** How a pending approval ended, for the act that waits on it. */
export type ApprovalOutcome =
  | { readonly kind: 'approved'; readonly by: string; readonly at: number }
  | { readonly kind: 'declined'; readonly by: string; readonly at: number }
  | { readonly kind: 'expired'; readonly at: number }
  | { readonly kind: 'cancelled'; readonly at: number };

/** One act waiting for its user. */
export interface PendingApproval {
  readonly actId: string;
  readonly tool: string;
  readonly input: unknown;
  readonly inputHash: string;
  readonly expiresAt: number;
}

/**
 * The approvals of one run: at most one pending at a time (the loop waits on it), each
 * answerable once, by the run's own user, for the exact input, before it expires.
 */
export class Approvals {
  readonly #wait: PendingWait<PendingApproval, Extract<ApprovalOutcome, { by: string }>>;

  constructor(
    private readonly owner: Principal,
    now: () => number,
    timers: WaitTimers,
  ) {
    this.#wait = new PendingWait(now, timers, 'an approval');
  }

  get pending(): PendingApproval | undefined {
    const p = this.#wait.request;
    return p === undefined
      ? undefined
      : { actId: p.actId, tool: p.tool, input: p.input, inputHash: p.inputHash, expiresAt: p.expiresAt };
  }

  /**
   * Opens the approval of one act; resolves when it is answered or expires. `onSettled` runs
   * synchronously at that moment (the run resumes before anyone reads its state again).
   */
  wait(request: PendingApproval, onSettled: (outcome: ApprovalOutcome) => void): Promise<ApprovalOutcome> {
    return this.#wait.open(request, onSettled);
  }

  /** A rebuilt run: approvals settled in its history settle the same way again (see `RunReplay`). */
  replaying(outcomeOf: (actId: string) => ResumeOutcome | undefined): void {
    this.#wait.recorded = (a) => outcomeOf(a.actId) as ApprovalOutcome | undefined;
  }

  /** Answers the pending approval: refused (as data) unless user, act, input and time all match. */
  answer(decision: ApprovalDecision): ApprovalAnswer {
    const pending = this.#wait.request;
    if (pending === undefined || pending.actId !== decision.actId) {
      if (this.#wait.lastExpired?.actId === decision.actId && decision.by.id === this.owner.id)
        return { ok: false, code: 'TIMEOUT', message: 'the approval expired' };
      return {
        ok: false,
        code: 'NOT_FOUND',
        message: 'no approval is pending for this act (answered, expired or never asked)',
      };
    }
    if (decision.by.id !== this.owner.id) {
      return {
        ok: false,
        code: 'PERMISSION_DENIED',
        message: "only the run's own user can answer its approvals",
      };
    }
    if (decision.inputHash !== pending.inputHash) {
      return {
        ok: false,
        code: 'INVALID_PARAMETER',
        message: 'inputHash does not match the input waiting for approval',
      };
    }
    const by = decision.by.id;
    const settled = this.#wait.answer((at) =>
      decision.approve ? { kind: 'approved', by, at } : { kind: 'declined', by, at },
    );
    if (settled === 'expired') return { ok: false, code: 'TIMEOUT', message: 'the approval expired' };
    return { ok: true, actId: decision.actId, approved: decision.approve };
  }

  /** The run was cancelled (or failed): a pending approval ends now, unanswered. */
  close(): void {
    this.#wait.close();
  }
}

/** SHA-256 (hex) of the canonical JSON of an input: what an approval is bound to. */
export async function inputHash(input: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(input));
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
