import type { HealthCheck } from '@reins/server';
import type { Db } from '../db/db.js';

/** Statements waiting and none has succeeded for this long: the database is stuck, not busy. */
export const DB_STALLED_AFTER_MS = 10_000;

/**
 * `/health`'s `db` check. PostgreSQL: a `SELECT 1` (bounded by the query deadline). PGlite in
 * its thread: its probe, which does not queue behind the statements being run — a busy database
 * is `up`, with how many statements wait (a `SELECT 1` waited behind all of them, and a loaded
 * server read as `unavailable`); statements waiting and none succeeded for 10 s is `down`.
 */
export function dbCheck(db: Db): HealthCheck {
  return async () => {
    if (db.probe === undefined) {
      await db.query('SELECT 1');
      return { status: 'up', backend: db.backend };
    }
    const { waiting, sinceOkMs } = await db.probe();
    return waiting > 0 && sinceOkMs > DB_STALLED_AFTER_MS
      ? {
          status: 'down',
          backend: db.backend,
          detail: `no statement has succeeded for ${sinceOkMs} ms; ${waiting} waiting`,
          waiting,
        }
      : { status: 'up', backend: db.backend, waiting };
  };
}
