import { createHash } from 'node:crypto';
import type { Db } from '../db/db.js';
import { sqlTimestamp } from './env.js';

export interface LoginThrottleOptions {
  /** Failures within `windowMs` that lock a username or an address. Default 5 (the 6th try gets 429). */
  readonly maxFailures?: number;
  /** How long failures are remembered, from the first of a series. Default 15 min. */
  readonly windowMs?: number;
  /** How long a lock lasts, from the failure that set it (fixed, not growing). Default 15 min. */
  readonly lockMs?: number;
}

export const LOGIN_THROTTLE_DEFAULTS = {
  maxFailures: 5,
  windowMs: 15 * 60_000,
  lockMs: 15 * 60_000,
} as const;

/**
 * Failed sign-ins counted per key in the kitchen database (table `login_failures`), so every
 * API instance on one database sees the same counts and locks.
 *
 * Contract: `lockedFor` is a read; `recordFailure` is one atomic upsert for all its keys (safe
 * under concurrent failures on any number of instances); `clear` forgets one key. Database
 * errors are passed through (a failing store must not quietly turn the limit off).
 */
export interface LoginThrottle {
  /**
   * Like `lockedFor`, from the locks this process has seen only (no query): a flood from a
   * locked address or at a locked username costs no database work. Sound because a lock is
   * fixed: nothing lifts it early.
   */
  knownLock(keys: readonly string[]): number;
  /** Seconds until the last lock on any of `keys` ends (at least 1), or 0 when none is locked. */
  lockedFor(keys: readonly string[]): Promise<number>;
  recordFailure(keys: readonly string[]): Promise<void>;
  clear(key: string): Promise<void>;
}

/**
 * The counter of a username: normalized (NFKC, trimmed, lower case) so case or width variants
 * count together, and hashed so the table does not keep what people typed (a password typed
 * into the username field, say). An unknown username gets a key like any other.
 */
export const usernameKey = (username: string): string =>
  `user:${createHash('sha256').update(username.normalize('NFKC').trim().toLowerCase()).digest('hex').slice(0, 32)}`;

/** The counter of a client address (already normalized, see `clientAddress`). */
export const addressKey = (address: string): string => `addr:${address}`;

// Rows whose window and lock are over are deleted after every this many failures of a process.
const SWEEP_EVERY = 50;
// Locks remembered in memory per process (the oldest go first past it).
const KNOWN_LOCKS = 10_000;

export function createLoginThrottle(
  db: Db,
  now: () => Date,
  options: LoginThrottleOptions = {},
): LoginThrottle {
  const maxFailures = whole('maxFailures', options.maxFailures ?? LOGIN_THROTTLE_DEFAULTS.maxFailures);
  const windowMs = whole('windowMs', options.windowMs ?? LOGIN_THROTTLE_DEFAULTS.windowMs);
  const lockMs = whole('lockMs', options.lockMs ?? LOGIN_THROTTLE_DEFAULTS.lockMs);
  let recorded = 0; // failures this process recorded, for the sweep
  const known = new Map<string, number>(); // key → locked until (epoch ms)
  const remember = (rows: readonly { key: string; until: string | null }[]) => {
    for (const { key, until } of rows) {
      if (until === null) continue;
      known.delete(key); // re-inserted last: the Map's order is the eviction order
      known.set(key, Date.parse(until));
      if (known.size > KNOWN_LOCKS) known.delete(known.keys().next().value as string);
    }
  };
  const secondsLeft = (keys: readonly string[], at: number) => {
    let until = 0;
    for (const key of keys) {
      const lockedUntil = known.get(key);
      if (lockedUntil === undefined) continue;
      if (lockedUntil <= at) known.delete(key);
      else until = Math.max(until, lockedUntil);
    }
    return until === 0 ? 0 : Math.max(1, Math.ceil((until - at) / 1000));
  };
  const placeholders = (keys: readonly string[], from: number) =>
    keys.map((_, i) => `$${from + i}`).join(', ');

  return {
    knownLock(keys) {
      return secondsLeft(keys, now().getTime());
    },

    async lockedFor(keys) {
      if (keys.length === 0) return 0;
      const at = now();
      remember(
        await db.query<{ key: string; until: string | null }>(
          `SELECT key, ${sqlTimestamp('locked_until')} AS until FROM login_failures
           WHERE key IN (${placeholders(keys, 2)}) AND locked_until > $1::timestamptz`,
          [at.toISOString(), ...keys],
        ),
      );
      return secondsLeft(keys, at.getTime());
    },

    async recordFailure(keys) {
      if (keys.length === 0) return;
      const at = now().getTime();
      // The window restarts when the row's is over; reaching maxFailures (re)sets the lock.
      const series = `(f.window_start > $3::timestamptz)`;
      const count = `(CASE WHEN ${series} THEN f.failures + 1 ELSE 1 END)`;
      const rows = await db.query<{ key: string; until: string | null }>(
        `INSERT INTO login_failures AS f (key, failures, window_start, locked_until)
         SELECT k, 1, $1::timestamptz, CASE WHEN $4::integer <= 1 THEN $2::timestamptz END
         FROM (VALUES ${keys.map((_, i) => `($${5 + i}::text)`).join(', ')}) AS keys (k)
         ON CONFLICT (key) DO UPDATE SET
           failures = ${count},
           window_start = CASE WHEN ${series} THEN f.window_start ELSE $1::timestamptz END,
           locked_until = CASE WHEN ${count} >= $4::integer THEN $2::timestamptz ELSE f.locked_until END
         RETURNING key, ${sqlTimestamp('locked_until')} AS until`,
        [
          new Date(at).toISOString(),
          new Date(at + lockMs).toISOString(),
          new Date(at - windowMs).toISOString(),
          maxFailures,
          ...keys,
        ],
      );
      remember(rows.filter((r) => r.until !== null && Date.parse(r.until) > at));
      if (++recorded % SWEEP_EVERY === 0) {
        await db.query(
          `DELETE FROM login_failures
           WHERE window_start <= $2::timestamptz AND (locked_until IS NULL OR locked_until <= $1::timestamptz)`,
          [new Date(at).toISOString(), new Date(at - windowMs).toISOString()],
        );
      }
    },

    async clear(key) {
      known.delete(key);
      await db.query('DELETE FROM login_failures WHERE key = $1', [key]);
    },
  };
}

function whole(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`login ${name} must be a whole number ≥ 1`);
  return n;
}
