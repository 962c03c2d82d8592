import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { lockDataDir } from './data-dir-lock.js';
import type { Db, Queryable } from './db.js';

export interface PgliteDbOptions {
  /** A directory on disk (created if missing); omitted → in memory (tests). */
  readonly dataDir?: string;
  /** Start from a `dumpDataDir()` tarball instead of running initdb (tests: ~0.5 s instead of ~5 s). */
  readonly loadDataDir?: Blob;
}

function wrap(q: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    query: async <R extends object>(sql: string, params: readonly unknown[] = []) =>
      (await q.query<R>(sql, [...params])).rows,
    exec: async (script) => {
      await q.exec(script);
    },
  };
}

/**
 * The embedded default: one PGlite instance (a single connection; PGlite queues callers). A data
 * directory is locked for this process first: another process holding it → `DataDirLockedError`.
 */
export async function openPgliteDb(options: PgliteDbOptions = {}): Promise<Db> {
  const lock = options.dataDir === undefined ? undefined : await lockDataDir(options.dataDir);
  try {
    const pg = await PGlite.create({
      // Household memories recall by trigram similarity (`sqlMemoryStore`); PGlite loads contrib
      // extensions only when created with them.
      extensions: { pg_trgm },
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    });
    return pgliteDb(pg, lock?.release);
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

/** A `Db` over an open PGlite instance; closing the `Db` closes the instance (then `onClose`). */
export function pgliteDb(pg: PGlite, onClose?: () => Promise<void>): Db {
  const base = wrap(pg);
  return {
    backend: 'pglite',
    ...base,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: async () => {
      try {
        await pg.close();
      } finally {
        await onClose?.();
      }
    },
  };
}
