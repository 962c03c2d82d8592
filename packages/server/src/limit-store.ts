import { memoryCounterStore, type CounterStore } from './counter-store.js';

/**
 * The check-and-update operations of the shared limits, each atomic (one Lua script in
 * Redis, one synchronous step in memory), so N instances over one store enforce one limit.
 *
 * - A **quota** (`key`) holds the model calls `used` today and one **hold** per run: the part
 *   of the run's worst case it has not used yet, with an expiry (so a crashed instance's
 *   holds lapse). `reserve` adds or replaces a hold only if `used + holds + amount ≤ limit`
 *   (`force` skips the check: a run already admitted); `charge` counts calls and takes them
 *   off the hold (refreshing its expiry); `release` drops what is left of it.
 * - A **slot set** (`key`) holds one slot per running run, each with an expiry: `acquireSlot`
 *   adds one while fewer than `max` live slots exist (`force` skips the check), `releaseSlot`
 *   removes it.
 *
 * Expired holds and slots count for nothing and are removed by the next operation on the key.
 * Every operation may reject (a store that is away); callers fail open.
 */
export interface LimitStore extends CounterStore {
  reserve(key: string, hold: Hold, limit: number, keyTtlMs: number, force: boolean): Promise<Reserved>;
  charge(key: string, holdId: string, amount: number, holdTtlMs: number, keyTtlMs: number): Promise<number>;
  release(key: string, holdId: string): Promise<void>;
  /** The quota's calls used and live holds (0, 0 when absent). */
  usage(key: string): Promise<{ readonly used: number; readonly held: number }>;
  acquireSlot(key: string, slotId: string, max: number, ttlMs: number, force: boolean): Promise<SlotTaken>;
  releaseSlot(key: string, slotId: string): Promise<void>;
}

export interface Hold {
  readonly id: string;
  readonly amount: number;
  readonly ttlMs: number;
}

export interface Reserved {
  readonly ok: boolean;
  /** Calls used, and held by runs (this hold included when `ok`). */
  readonly used: number;
  readonly held: number;
}

export interface SlotTaken {
  readonly ok: boolean;
  /** Live slots after the operation (when refused: the ones that are full). */
  readonly count: number;
}

interface Quota {
  used: number;
  holds: Map<string, { amount: number; expiresAt: number }>;
  expiresAt: number;
}

/** The limits in process memory (the embedded default; one instance). */
export function memoryLimitStore(options: { now?: () => number; maxKeys?: number } = {}): LimitStore {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const counters = memoryCounterStore(options);
  const quotas = new Map<string, Quota>();
  const slots = new Map<string, Map<string, number>>();

  const bounded = <V>(map: Map<string, V>): void => {
    if (map.size < maxKeys) return;
    const oldest = map.keys().next(); // insertion order: the oldest key first
    if (oldest.done !== true) map.delete(oldest.value);
  };
  const quota = (key: string, at: number, keyTtlMs?: number): Quota | undefined => {
    let q = quotas.get(key);
    if (q !== undefined && q.expiresAt <= at) {
      quotas.delete(key);
      q = undefined;
    }
    if (q === undefined && keyTtlMs !== undefined) {
      bounded(quotas);
      q = { used: 0, holds: new Map(), expiresAt: at + keyTtlMs };
      quotas.set(key, q);
    }
    if (q !== undefined) for (const [id, h] of q.holds) if (h.expiresAt <= at) q.holds.delete(id);
    return q;
  };
  const heldBy = (q: Quota, except?: string): number => {
    let held = 0;
    for (const [id, h] of q.holds) if (id !== except) held += h.amount;
    return held;
  };
  const liveSlots = (key: string, at: number): Map<string, number> | undefined => {
    const set = slots.get(key);
    if (set === undefined) return undefined;
    for (const [id, expiresAt] of set) if (expiresAt <= at) set.delete(id);
    if (set.size === 0) slots.delete(key);
    return set.size === 0 ? undefined : set;
  };

  return {
    ...counters,
    name: 'memory',
    reserve: async (key, hold, limit, keyTtlMs, force) => {
      const at = now();
      const q = quota(key, at, keyTtlMs) as Quota;
      const held = heldBy(q, hold.id);
      if (!force && q.used + held + hold.amount > limit) return { ok: false, used: q.used, held };
      q.holds.set(hold.id, { amount: hold.amount, expiresAt: at + hold.ttlMs });
      return { ok: true, used: q.used, held: held + hold.amount };
    },
    charge: async (key, holdId, amount, holdTtlMs, keyTtlMs) => {
      const at = now();
      const q = quota(key, at, keyTtlMs) as Quota;
      q.used += amount;
      const h = q.holds.get(holdId);
      if (h !== undefined) {
        h.amount = Math.max(0, h.amount - amount);
        h.expiresAt = at + holdTtlMs;
      }
      return q.used;
    },
    release: async (key, holdId) => {
      quota(key, now())?.holds.delete(holdId);
    },
    usage: async (key) => {
      const q = quota(key, now());
      return q === undefined ? { used: 0, held: 0 } : { used: q.used, held: heldBy(q) };
    },
    acquireSlot: async (key, slotId, max, ttlMs, force) => {
      const at = now();
      let set = liveSlots(key, at);
      if (set === undefined) {
        bounded(slots);
        set = new Map();
        slots.set(key, set);
      }
      if (!set.has(slotId) && !force && set.size >= max) return { ok: false, count: set.size };
      set.set(slotId, at + ttlMs);
      return { ok: true, count: set.size };
    },
    releaseSlot: async (key, slotId) => {
      liveSlots(key, now())?.delete(slotId);
    },
  };
}
