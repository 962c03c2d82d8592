import type { Hold } from './limit-store.js';
import type { CheckBudget, QuotaGuard } from './quota.js';

/** What a run may spend: its worst case in model calls, and how long it may run or wait. */
export interface RunBudget {
  readonly maxSteps: number;
  readonly deadlineMs: number;
  readonly approvalTtlMs: number;
}

/**
 * One run's share of the limits, from admission to settlement: its quota hold (the calls it
 * may still make) and its running-run slot. Driven by the run watcher: `charge` per model
 * call, `pause` / `resume` around a pause, `end` when the run ends (any way).
 *
 * Expiries bound what a crashed instance leaves behind: a running run's hold and slot lapse
 * `deadlineMs + holdMarginMs` after they were last set (the deadline bounds its running time),
 * a paused run's hold `approvalTtlMs + deadlineMs + holdMarginMs` after the pause (it keeps
 * its reservation while it waits; its slot is given back). Every operation fails open.
 */
export class RunHold {
  readonly quotaKey: string;
  readonly slotKey: string;
  #ended = false;
  /** Store calls that take (a slot, a reservation) whose answer has not come yet. */
  readonly #unanswered = new Set<Promise<unknown>>();
  /** What a take was sent for (answered or not): only that is ever given back. */
  readonly #sent = { slot: false, quota: false };

  constructor(
    private readonly guard: QuotaGuard,
    readonly userId: string,
    readonly runId: string,
    readonly admittedAt: number,
    readonly budget: RunBudget,
    /** The run's one fail-open budget, shared with its admission checks. */
    readonly checks: CheckBudget = guard.budget(),
  ) {
    this.quotaKey = guard.quotaKey(userId, admittedAt);
    this.slotKey = `runs:${userId}`;
  }

  get slotTtlMs(): number {
    return this.budget.deadlineMs + this.guard.holdMarginMs;
  }

  get #pausedTtlMs(): number {
    return this.budget.approvalTtlMs + this.slotTtlMs;
  }

  get #keyTtlMs(): number {
    return this.guard.untilMidnightMs(this.admittedAt) + 60_000;
  }

  get #quota(): boolean {
    return Number.isFinite(this.guard.dailyModelCalls);
  }

  get #slots(): boolean {
    return Number.isFinite(this.guard.maxConcurrentRuns);
  }

  /**
   * Records a store call that takes a slot or a reservation, and returns it. A take that fails
   * open still lands later in the store: a give-back made before it landed is made again then,
   * or the late take would keep the slot (or hold) until it expires.
   */
  taking<T>(what: 'slot' | 'quota', call: Promise<T>): Promise<T> {
    this.#sent[what] = true;
    this.#unanswered.add(call);
    const landed = (): void => void this.#unanswered.delete(call);
    call.then(landed, landed);
    return call;
  }

  /**
   * Gives back what a take was sent for: now, under a deadline of its own (never skipped for a
   * spent budget), and again once a take still unanswered lands. Nothing sent, nothing to give.
   */
  #giveBack(what: 'slot' | 'quota', giveBack: () => Promise<unknown>): Promise<unknown> {
    if (!this.#sent[what]) return Promise.resolve();
    if (this.#unanswered.size > 0) void Promise.allSettled([...this.#unanswered]).then(giveBack);
    return giveBack();
  }

  initialHold(): Hold {
    return { id: this.runId, amount: this.budget.maxSteps, ttlMs: this.slotTtlMs };
  }

  /**
   * A run rebuilt from its history (after a restart): holds what it may still call (its
   * `maxSteps` less the calls the history made, which were charged then) and, running, a slot
   * — forced: it was admitted before. Same ids as before: the old hold and slot are replaced.
   */
  async rebuild(callsMade: number, paused: boolean): Promise<void> {
    const left = Math.max(0, this.budget.maxSteps - callsMade);
    const ttlMs = paused ? this.#pausedTtlMs : this.slotTtlMs;
    await Promise.all([
      this.#quota
        ? this.guard.guarded(
            'quota_check',
            (s) =>
              this.taking(
                'quota',
                s.reserve(this.quotaKey, { id: this.runId, amount: left, ttlMs }, 0, this.#keyTtlMs, true),
              ),
            this.checks,
          )
        : undefined,
      this.#slots ? this.#slot(!paused) : undefined,
    ]);
  }

  /** One model call made: counted, and taken off the hold. */
  async charge(calls = 1): Promise<void> {
    if (!this.#quota) return;
    await this.guard.guarded(
      'quota_count',
      (s) => s.charge(this.quotaKey, this.runId, calls, this.slotTtlMs, this.#keyTtlMs),
      this.checks,
    );
  }

  /** Paused: the slot is given back; the hold stays, for as long as the run may wait. */
  async pause(): Promise<void> {
    await Promise.all([
      this.#quota
        ? this.guard.guarded(
            'quota_settle',
            (s) => s.charge(this.quotaKey, this.runId, 0, this.#pausedTtlMs, this.#keyTtlMs),
            this.checks,
          )
        : undefined,
      this.#slots ? this.#slot(false) : undefined,
    ]);
  }

  /** Going on after a pause: a slot again (forced: the user answered; not refused). */
  async resume(): Promise<void> {
    await Promise.all([this.charge(0), this.#slots ? this.#slot(true) : undefined]);
  }

  /** Ended (success, error, cancel, interrupted): what was not used is given back, and the slot. */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await Promise.all([
      // Giving back is never skipped for a spent budget (its own deadline only): a late store
      // answer earlier in the run must not keep the user's slot and hold taken until they expire.
      this.#quota
        ? this.#giveBack('quota', () =>
            this.guard.guarded('quota_settle', (s) => s.release(this.quotaKey, this.runId)),
          )
        : undefined,
      this.#slots ? this.#slot(false) : undefined,
    ]);
  }

  /** Takes a slot (under the run's budget) or gives it back (under a deadline of its own, never skipped). */
  #slot(take: boolean): Promise<unknown> {
    if (!take)
      return this.#giveBack('slot', () =>
        this.guard.guarded('run_slot', (s) => s.releaseSlot(this.slotKey, this.runId)),
      );
    return this.guard.guarded(
      'run_slot',
      (s) =>
        this.taking(
          'slot',
          s.acquireSlot(this.slotKey, this.runId, this.guard.maxConcurrentRuns, this.slotTtlMs, true),
        ),
      this.checks,
    );
  }
}
