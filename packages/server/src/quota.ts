import type { Principal } from 'reins';
import { failOpen } from './fail-open.js';
import type { LimitStore } from './limit-store.js';
import { isAnonymous, normalizedQueryHash, queryHash } from './query-key.js';
import { RunHold, type RunBudget } from './run-hold.js';

export { queryHash } from './query-key.js';

export interface QuotaOptions {
  /** Model calls one user may make per UTC day; default 200. `Infinity` turns the quota off. */
  readonly dailyModelCalls?: number;
  /** Runs per (caller, query) per window; default 5 (seed 003 §4.4). */
  readonly ratePerWindow?: number;
  /** Default 60 000. */
  readonly rateWindowMs?: number;
  /** Runs one signed-in user may start per minute (any query); default 20. `Infinity`: off. */
  readonly userRunsPerMinute?: number;
  /** Running (not paused) runs per user; default 3. `Infinity`: off. */
  readonly maxConcurrentRuns?: number;
  /** Added to a run's deadline for the expiry of its hold and slot (crashed instances); default 60 000. */
  readonly holdMarginMs?: number;
  /** How long a quota or rate-limit check may take before the request goes on; default 50. */
  readonly deadlineMs?: number;
}

/**
 * How long one run's limit checks may still wait on the store before failing open (see
 * `QuotaGuard.budget`): only time spent on checks that failed open (late or refused) is taken
 * off, so a healthy store never spends it.
 */
export interface CheckBudget {
  leftMs: number;
}

export type LimitCode = 'RATE_LIMITED' | 'QUOTA_EXCEEDED' | 'TOO_MANY_RUNS';

export type Admission =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: LimitCode;
      readonly message: string;
      readonly retryAfterS: number;
    };

export type FailOpenOperation =
  | 'rate_limit'
  | 'quota_check'
  | 'quota_count'
  | 'quota_settle'
  | 'run_slot'
  | 'breaker_check'
  | 'breaker_record';

const DAY_MS = 86_400_000;
/** Retry-After when the quota is held by runs in progress (they settle when they end). */
const HELD_RETRY_S = 10;

/**
 * The limits, over one limit store (memory, or Redis shared by every instance):
 * - rate: anonymous callers per (IP, query hash); signed-in ones per (user, normalized
 *   query hash), plus `userRunsPerMinute` per user;
 * - daily model calls: a run reserves its worst case (`maxSteps` calls) at admission, is
 *   charged each call as it is made and settles to what it used when it ends (`RunHold`);
 * - running runs per user: `maxConcurrentRuns` slots.
 * Every store operation fails open under `deadlineMs`.
 */
export class QuotaGuard {
  readonly #store: LimitStore;
  readonly #now: () => number;
  readonly #onFailOpen: (operation: FailOpenOperation, reason: string) => void;
  readonly dailyModelCalls: number;
  readonly ratePerWindow: number;
  readonly rateWindowMs: number;
  readonly userRunsPerMinute: number;
  readonly maxConcurrentRuns: number;
  readonly holdMarginMs: number;
  readonly deadlineMs: number;

  constructor(
    store: LimitStore,
    options: QuotaOptions,
    now: () => number,
    onFailOpen: (operation: FailOpenOperation, reason: string) => void,
  ) {
    this.#store = store;
    this.#now = now;
    this.#onFailOpen = onFailOpen;
    this.dailyModelCalls = options.dailyModelCalls ?? 200;
    this.ratePerWindow = options.ratePerWindow ?? 5;
    this.rateWindowMs = options.rateWindowMs ?? 60_000;
    this.userRunsPerMinute = options.userRunsPerMinute ?? 20;
    this.maxConcurrentRuns = options.maxConcurrentRuns ?? 3;
    this.holdMarginMs = options.holdMarginMs ?? 60_000;
    this.deadlineMs = options.deadlineMs ?? 50;
  }

  get store(): LimitStore {
    return this.#store;
  }

  /**
   * One fail-open budget for all the limit checks of one run (issue 16.15): its rate limits, slot
   * and reservation at admission, and its hold's charges and settlement after — `deadlineMs` in
   * all, so a black-holed store costs a run one deadline, not one per check. `admit` gives it to
   * the run's hold.
   */
  budget(): CheckBudget {
    return { leftMs: this.deadlineMs };
  }

  /**
   * Store operation under the deadline — what is left of `budget` when one is given (none
   * left: it fails open at once, unasked). `undefined` when it failed open (reported).
   */
  guarded<T>(
    operation: FailOpenOperation,
    call: (store: LimitStore) => Promise<T>,
    budget?: CheckBudget,
  ): Promise<T | undefined> {
    const deadlineMs = budget === undefined ? this.deadlineMs : Math.min(this.deadlineMs, budget.leftMs);
    if (deadlineMs <= 0) {
      this.#onFailOpen(operation, `skipped: this run's ${this.deadlineMs} ms for limit checks is spent`);
      return Promise.resolve(undefined);
    }
    const started = performance.now();
    return failOpen(
      () => call(this.#store),
      deadlineMs,
      (reason) => {
        if (budget !== undefined) budget.leftMs -= performance.now() - started;
        this.#onFailOpen(operation, reason);
      },
    );
  }

  /** Counts this attempt against the caller's (query) key and, signed in, the caller's minute. */
  async rateLimit(
    principal: Principal,
    ip: string,
    query: string,
    budget = this.budget(),
  ): Promise<Admission> {
    if (!Number.isFinite(this.ratePerWindow) && !Number.isFinite(this.userRunsPerMinute)) return { ok: true };
    if (isAnonymous(principal))
      return Number.isFinite(this.ratePerWindow)
        ? this.#window(`rl:${ip}:${queryHash(query)}`, this.ratePerWindow, budget)
        : { ok: true };
    const [same, minute] = await Promise.all([
      Number.isFinite(this.ratePerWindow)
        ? this.#window(`rl:u:${principal.id}:${normalizedQueryHash(query)}`, this.ratePerWindow, budget)
        : ({ ok: true } as const),
      Number.isFinite(this.userRunsPerMinute)
        ? this.#window(`rpm:${principal.id}`, this.userRunsPerMinute, budget, 60_000, 'runs')
        : ({ ok: true } as const),
    ]);
    return same.ok ? minute : same;
  }

  async #window(
    key: string,
    max: number,
    budget: CheckBudget,
    windowMs = this.rateWindowMs,
    what = 'identical requests',
  ) {
    const window = await this.guarded('rate_limit', (s) => s.add(key, 1, windowMs), budget);
    if (window === undefined || window.count <= max) return { ok: true } as const;
    return {
      ok: false,
      code: 'RATE_LIMITED',
      message: `more than ${max} ${what} in ${windowMs / 1000} s; try again later`,
      retryAfterS: Math.max(1, Math.ceil(window.resetInMs / 1000)),
    } as const;
  }

  /**
   * Admits a run: takes one of the user's running-run slots, then reserves its worst case
   * (`budget.maxSteps` model calls) against the day. Refused → the slot is given back.
   */
  async admit(
    userId: string,
    runId: string,
    budget: RunBudget,
    checks: CheckBudget = this.budget(),
  ): Promise<{ readonly ok: true; readonly hold: RunHold } | Exclude<Admission, { ok: true }>> {
    const hold = new RunHold(this, userId, runId, this.#now(), budget, checks);
    const limit = this.dailyModelCalls;
    // Both at once (one deadline when the store is away); the one taken is given back if the other refuses.
    const [slot, reserved] = await Promise.all([
      Number.isFinite(this.maxConcurrentRuns)
        ? this.guarded(
            'run_slot',
            (s) =>
              hold.taking(
                'slot',
                s.acquireSlot(hold.slotKey, runId, this.maxConcurrentRuns, hold.slotTtlMs, false),
              ),
            checks,
          )
        : undefined,
      Number.isFinite(limit)
        ? this.guarded(
            'quota_check',
            (s) =>
              hold.taking(
                'quota',
                s.reserve(
                  hold.quotaKey,
                  hold.initialHold(),
                  limit,
                  this.untilMidnightMs(hold.admittedAt) + 60_000,
                  false,
                ),
              ),
            checks,
          )
        : undefined,
    ]);
    if (slot?.ok === false) {
      // What the other took is given back (also a take that answers late: `RunHold.end`).
      if (reserved?.ok !== false) await hold.end();
      return {
        ok: false,
        code: 'TOO_MANY_RUNS',
        message: `${this.maxConcurrentRuns} runs already running; wait for one to end`,
        retryAfterS: 1,
      };
    }
    if (reserved?.ok === false) {
      await hold.end(); // the slot it took (or may yet: a late answer)
      const usedUp = reserved.used + budget.maxSteps > limit;
      return {
        ok: false,
        code: 'QUOTA_EXCEEDED',
        message: usedUp
          ? `daily quota of ${limit} model calls: ${reserved.used} used, this run may need ${budget.maxSteps}`
          : `daily quota of ${limit} model calls: ${reserved.used} used and ${reserved.held} held by runs in progress`,
        retryAfterS: usedUp ? Math.max(1, Math.ceil(this.untilMidnightMs(this.#now()) / 1000)) : HELD_RETRY_S,
      };
    }
    return { ok: true, hold };
  }

  /** The hold of a run rebuilt after a restart (admitted before; never refused). */
  rebuilt(userId: string, runId: string, admittedAt: number, budget: RunBudget): RunHold {
    return new RunHold(this, userId, runId, admittedAt, budget, this.budget());
  }

  /** The user's model calls used today (for tests and admin; undefined when the store is away). */
  async used(userId: string): Promise<number | undefined> {
    const usage = await this.#store.usage(this.quotaKey(userId, this.#now())).catch(() => undefined);
    return usage?.used;
  }

  /** Calls used and held today (undefined when the store is away). */
  usage(userId: string): Promise<{ readonly used: number; readonly held: number } | undefined> {
    return this.#store.usage(this.quotaKey(userId, this.#now())).catch(() => undefined);
  }

  /** A run's calls count on the UTC day it was admitted. */
  quotaKey(userId: string, at: number): string {
    return `quota:${new Date(at).toISOString().slice(0, 10)}:${userId}`;
  }

  untilMidnightMs(at: number): number {
    return DAY_MS - (at % DAY_MS);
  }
}
