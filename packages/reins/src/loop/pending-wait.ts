/** The timer functions a wait uses (`RunDeps` provides them; tests fake them). */
export interface WaitTimers {
  setTimer(cb: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** How a wait ends without an answer: its time passed, or the run was cancelled. */
export type WaitEnd =
  { readonly kind: 'expired'; readonly at: number } | { readonly kind: 'cancelled'; readonly at: number };

/**
 * One thing a run waits on its user for (an approval, a question): at most one at a time,
 * settled exactly once — by an answer, at its expiry, or on cancel. The caller's
 * `onSettled` runs synchronously at that moment, so the run resumes before anyone reads its
 * state again. The checks of who may answer and with what stay with the caller.
 */
export class PendingWait<R extends { readonly expiresAt: number }, Answer> {
  #pending: { request: R; settle(outcome: Answer | WaitEnd): void; timer: unknown } | undefined;
  /** The last request whose time ran out: an answer to it is told it expired, not that it never was. */
  lastExpired: R | undefined;

  /**
   * How a wait was settled before the process restarted (a run rebuilt from its log): such a
   * wait settles the same way at once (in a microtask, after the caller has paused).
   */
  recorded: ((request: R) => Answer | WaitEnd | undefined) | undefined;

  constructor(
    private readonly now: () => number,
    private readonly timers: WaitTimers,
    /** Names the thing in the programmer error of opening two ("an approval"). */
    private readonly what: string,
  ) {}

  /** The request waiting now, if any. */
  get request(): R | undefined {
    return this.#pending?.request;
  }

  /**
   * Opens the wait; resolves when it is answered, expires or is cancelled. `onSettled` runs
   * synchronously at that moment with the outcome (the run logs it and resumes).
   */
  open(request: R, onSettled: (outcome: Answer | WaitEnd) => void): Promise<Answer | WaitEnd> {
    if (this.#pending !== undefined) throw new Error(`${this.what} is already pending`);
    return new Promise((resolve) => {
      const settle = (outcome: Answer | WaitEnd): void => {
        if (this.#pending?.request !== request) return;
        this.timers.clearTimer(this.#pending.timer);
        this.#pending = undefined;
        if ((outcome as Partial<WaitEnd>).kind === 'expired') this.lastExpired = request;
        onSettled(outcome);
        resolve(outcome);
      };
      // Settled already: by its history (a rebuilt run), or by the clock (a rebuilt run whose
      // wait ran out while nobody held it). Either way at once, in a microtask after the caller
      // has paused: a timer, even of 0 ms, left the run paused for whoever looked first.
      const at = this.now();
      const settled = this.recorded?.(request) ?? (at >= request.expiresAt ? expired(at) : undefined);
      if (settled !== undefined) {
        this.#pending = { request, settle, timer: undefined };
        queueMicrotask(() => settle(settled));
        return;
      }
      const timer = this.timers.setTimer(() => settle(expired(this.now())), request.expiresAt - at);
      this.#pending = { request, settle, timer };
    });
  }

  /**
   * Settles the pending wait with the answer `make(at)` — or as expired when its time has
   * passed by now (an answer that arrives late is refused, and the wait ends anyway).
   */
  answer(make: (at: number) => Answer): 'answered' | 'expired' | 'none' {
    const pending = this.#pending;
    if (pending === undefined) return 'none';
    const at = this.now();
    if (at >= pending.request.expiresAt) {
      pending.settle(expired(at));
      return 'expired';
    }
    pending.settle(make(at));
    return 'answered';
  }

  /** The run was cancelled (or failed): a pending wait ends now, unanswered. */
  close(): void {
    this.#pending?.settle({ kind: 'cancelled', at: this.now() });
  }
}

function expired(at: number): WaitEnd {
  return { kind: 'expired', at };
}
