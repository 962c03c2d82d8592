import { setTimeout as sleep } from 'node:timers/promises';
import { conflict, invalid, KitchenError } from '../domain/errors.js';
import type { ServiceEnv } from './env.js';
import { requireMember, type KitchenPrincipal } from './principal.js';

/** A stored first answer: what a repeat of the request gets back. */
export interface StoredAnswer {
  readonly status: number;
  readonly body: string;
  readonly etag: string | null;
}

/** A key as stored: whose it is (after the membership check) and the key itself. */
export interface KeyScope {
  readonly householdId: string;
  readonly userId: string;
  readonly key: string;
}

/** Where a keyed request stands: run it (this request holds the key) or replay the first answer. */
export type Claim =
  { readonly kind: 'run'; readonly scope: KeyScope } | ({ readonly kind: 'replay' } & StoredAnswer);

export interface IdempotencyOptions {
  /** How long an answer is replayed (and its key taken). Default 24 h. */
  readonly ttlMs?: number;
  /** A claim still without an answer after this long is taken to be abandoned (a crash). Default 2 min. */
  readonly abandonedAfterMs?: number;
  /** How long a repeat waits for a first request still running before a 409. Default 10 s. */
  readonly waitMs?: number;
}

/**
 * `Idempotency-Key` on POSTs (issue 16.14): per household, user and key, the first request runs
 * and its answer (status, body, ETag) is stored; a repeat within 24 h gets that answer back and
 * runs nothing. The same key with another request (method, path or body) is refused (422
 * `IDEMPOTENCY_KEY_REUSED`). The table's primary key decides between concurrent repeats: one
 * claims the key and runs, the others wait for its answer. Expired keys are swept on each claim.
 */
export interface IdempotencyService {
  claim(principal: KitchenPrincipal, key: string, requestHash: string): Promise<Claim>;
  /** Stores the answer of the request that claimed the key. */
  complete(scope: KeyScope, answer: StoredAnswer): Promise<void>;
  /** Gives the key back (the request failed with a 5xx: a repeat should run again). */
  release(scope: KeyScope): Promise<void>;
}

/** Visible ASCII, as Stripe and the IETF draft use them (a UUID fits easily). */
const KEY = /^[\x21-\x7e]{1,255}$/;

export function createIdempotencyService(
  env: ServiceEnv,
  options: IdempotencyOptions = {},
): IdempotencyService {
  const { db } = env;
  const ttlMs = options.ttlMs ?? 24 * 3600 * 1000;
  const abandonedAfterMs = options.abandonedAfterMs ?? 120_000;
  const waitMs = options.waitMs ?? 10_000;
  const ago = (ms: number) => new Date(env.now().getTime() - ms).toISOString();

  return {
    async claim(principal, key, requestHash) {
      if (!KEY.test(key))
        throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
      const { householdId, userId } = await requireMember(db, principal);
      // The sweep: expired answers go (this key's too, so it can be used afresh), and so do
      // claims a crash left without an answer.
      await db.query(
        'DELETE FROM idempotency_keys WHERE created_at < $1 OR (status IS NULL AND created_at < $2)',
        [ago(ttlMs), ago(abandonedAfterMs)],
      );
      const deadline = Date.now() + waitMs;
      for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
        const claimed = await db.query(
          `INSERT INTO idempotency_keys (household_id, user_id, key, request_hash, created_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (household_id, user_id, key) DO NOTHING RETURNING key`,
          [householdId, userId, key, requestHash, env.now().toISOString()],
        );
        if (claimed.length > 0) return { kind: 'run', scope: { householdId, userId, key } };
        const rows = await db.query<{
          request_hash: string;
          status: number | null;
          body: string | null;
          etag: string | null;
        }>(
          'SELECT request_hash, status, body, etag FROM idempotency_keys WHERE household_id = $1 AND user_id = $2 AND key = $3',
          [householdId, userId, key],
        );
        const row = rows[0];
        if (row === undefined) continue; // released or swept in between: claim it again
        if (row.request_hash !== requestHash)
          throw new KitchenError(
            'IDEMPOTENCY_KEY_REUSED',
            'this Idempotency-Key was used for another request (method, path or body) in the last 24 h: use a new key',
            'Idempotency-Key',
          );
        if (row.status !== null)
          return { kind: 'replay', status: row.status, body: row.body ?? '', etag: row.etag };
        // The first request with this key is still running: wait for its answer.
        if (Date.now() >= deadline)
          throw conflict(
            'a request with this Idempotency-Key is still running: retry in a moment',
            'Idempotency-Key',
          );
        await sleep(pause);
      }
    },

    async complete({ householdId, userId, key }, answer) {
      await db.query(
        `UPDATE idempotency_keys SET status = $4, body = $5, etag = $6
         WHERE household_id = $1 AND user_id = $2 AND key = $3`,
        [householdId, userId, key, answer.status, answer.body, answer.etag],
      );
    },

    async release({ householdId, userId, key }) {
      await db.query(
        'DELETE FROM idempotency_keys WHERE household_id = $1 AND user_id = $2 AND key = $3 AND status IS NULL',
        [householdId, userId, key],
      );
    },
  };
}
