import type { ErrorCode } from '../errors.js';
import type { Principal } from '../principal.js';
import { canonicalJson } from '../util/canonical-json.js';

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
  #pending: (PendingApproval & { settle(outcome: ApprovalOutcome): void; timer: unknown }) | undefined;

  constructor(
    private readonly owner: Principal,
    private readonly now: () => number,
    private readonly timers: {
      setTimer(cb: () => void, ms: number): unknown;
      clearTimer(handle: unknown): void;
    },
  ) {}

  get pending(): PendingApproval | undefined {
    const p = this.#pending;
    return p === undefined
      ? undefined
      : { actId: p.actId, tool: p.tool, input: p.input, inputHash: p.inputHash, expiresAt: p.expiresAt };
  }

  /**
   * Opens the approval of one act; resolves when it is answered or expires. `onSettled` runs
   * synchronously at that moment (the run resumes before anyone reads its state again).
   */
  wait(request: PendingApproval, onSettled: () => void): Promise<ApprovalOutcome> {
    if (this.#pending !== undefined) throw new Error('an approval is already pending');
    return new Promise((resolve) => {
      const settle = (outcome: ApprovalOutcome): void => {
        if (this.#pending?.actId !== request.actId) return;
        this.timers.clearTimer(this.#pending.timer);
        this.#pending = undefined;
        onSettled();
        resolve(outcome);
      };
      const timer = this.timers.setTimer(
        () => settle({ kind: 'expired', at: this.now() }),
        Math.max(0, request.expiresAt - this.now()),
      );
      this.#pending = { ...request, settle, timer };
    });
  }

  /** Answers the pending approval: refused (as data) unless user, act, input and time all match. */
  answer(decision: ApprovalDecision): ApprovalAnswer {
    const pending = this.#pending;
    if (pending === undefined || pending.actId !== decision.actId) {
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
    const at = this.now();
    if (at >= pending.expiresAt) {
      pending.settle({ kind: 'expired', at });
      return { ok: false, code: 'TIMEOUT', message: 'the approval expired' };
    }
    pending.settle(
      decision.approve
        ? { kind: 'approved', by: decision.by.id, at }
        : { kind: 'declined', by: decision.by.id, at },
    );
    return { ok: true, actId: decision.actId, approved: decision.approve };
  }

  /** The run was cancelled (or failed): a pending approval ends now, unanswered. */
  close(): void {
    this.#pending?.settle({ kind: 'cancelled', at: this.now() });
  }
}

/** SHA-256 (hex) of the canonical JSON of an input: what an approval is bound to. */
export async function inputHash(input: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(input));
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
