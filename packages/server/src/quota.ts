import { createHash } from 'node:crypto';
import type { CounterStore } from './counter-store.js';
import { failOpen } from './fail-open.js';

export interface QuotaOptions {
  /** Model calls one user may make per UTC day; default 200. `Infinity` turns the quota off. */
  readonly dailyModelCalls?: number;
  /** Runs per (client IP, query hash) per window; default 5 (seed 003 §4.4). */
  readonly ratePerWindow?: number;
  /** Default 60 000. */
  readonly rateWindowMs?: number;
  /** How long a quota or rate-limit check may take before the request goes on; default 50. */
  readonly deadlineMs?: number;
}

export type Admission =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: 'RATE_LIMITED' | 'QUOTA_EXCEEDED';
      readonly message: string;
      readonly retryAfterS: number;
    };

export type FailOpenOperation = 'rate_limit' | 'quota_check' | 'quota_count';

const DAY_MS = 86_400_000;

/**
 * The daily model-call quota and the (IP, query) rate limit, over one counter store.
 *
 * Quota semantics: a run is admitted while the user's count for the UTC day is below the
 * limit; each model call the run then makes (each `reason` event) adds one. So the count is
 * the model calls actually made, and a run admitted with one call left may overshoot by at
 * most its `maxSteps − 1` — the price of not reserving (no refunds to lose when an instance
 * dies mid-run). Every store operation fails open under `deadlineMs`.
 */
export class QuotaGuard {
  readonly #store: CounterStore;
  readonly #now: () => number;
  readonly #onFailOpen: (operation: FailOpenOperation, reason: string) => void;
  readonly dailyModelCalls: number;
  readonly ratePerWindow: number;
  readonly rateWindowMs: number;
  readonly deadlineMs: number;

  constructor(
    store: CounterStore,
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
    this.deadlineMs = options.deadlineMs ?? 50;
  }

  get store(): CounterStore {
    return this.#store;
  }

  /** Counts this attempt against (ip, query) and refuses above the rate. */
  async rateLimit(ip: string, query: string): Promise<Admission> {
    const key = `rl:${ip}:${queryHash(query)}`;
    const window = await failOpen(
      () => this.#store.add(key, 1, this.rateWindowMs),
      this.deadlineMs,
      (reason) => this.#onFailOpen('rate_limit', reason),
    );
    if (window === undefined || window.count <= this.ratePerWindow) return { ok: true };
    return {
      ok: false,
      code: 'RATE_LIMITED',
      message: `more than ${this.ratePerWindow} identical requests in ${this.rateWindowMs / 1000} s; try again later`,
      retryAfterS: Math.max(1, Math.ceil(window.resetInMs / 1000)),
    };
  }

  /** Admits a run while the user has model calls left today. */
  async admit(userId: string): Promise<Admission> {
    if (!Number.isFinite(this.dailyModelCalls)) return { ok: true };
    const window = await failOpen(
      () => this.#store.peek(this.#dayKey(userId)),
      this.deadlineMs,
      (reason) => this.#onFailOpen('quota_check', reason),
    );
    if (window === undefined || window.count < this.dailyModelCalls) return { ok: true };
    return {
      ok: false,
      code: 'QUOTA_EXCEEDED',
      message: `daily quota of ${this.dailyModelCalls} model calls used up`,
      retryAfterS: Math.max(1, Math.ceil(this.#untilMidnightMs() / 1000)),
    };
  }

  /** Adds model calls to the user's day (fails open: a lost count is reported, not retried). */
  async count(userId: string, modelCalls: number): Promise<void> {
    if (!Number.isFinite(this.dailyModelCalls) || modelCalls <= 0) return;
    await failOpen(
      () => this.#store.add(this.#dayKey(userId), modelCalls, this.#untilMidnightMs() + 60_000),
      this.deadlineMs,
      (reason) => this.#onFailOpen('quota_count', reason),
    );
  }

  /** The user's count today (for tests and admin; undefined when the store is away). */
  async used(userId: string): Promise<number | undefined> {
    const window = await this.#store.peek(this.#dayKey(userId)).catch(() => undefined);
    return window?.count;
  }

  #dayKey(userId: string): string {
    const day = new Date(this.#now()).toISOString().slice(0, 10);
    return `quota:${day}:${userId}`;
  }

  #untilMidnightMs(): number {
    const now = this.#now();
    return DAY_MS - (now % DAY_MS);
  }
}

/** A short, stable hash of the normalized query (whitespace and case do not make a new key). */
export function queryHash(query: string): string {
  const normalized = query.trim().replace(/\s+/g, ' ').toLowerCase();
  return createHash('sha256').update(normalized).digest('hex').slice(0, 16);
}
