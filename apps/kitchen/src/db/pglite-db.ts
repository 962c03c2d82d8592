import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
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

/** The embedded default: one PGlite instance (a single connection; PGlite queues callers). */
export async function openPgliteDb(options: PgliteDbOptions = {}): Promise<Db> {
  const pg = await PGlite.create({
    // Household memories recall by trigram similarity (`sqlMemoryStore`); PGlite loads contrib
    // extensions only when created with them.
    extensions: { pg_trgm },
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
  });
  return pgliteDb(pg);
}

/** A `Db` over an open PGlite instance; closing the `Db` closes the instance. */
export function pgliteDb(pg: PGlite): Db {
  const base = wrap(pg);
  return {
    backend: 'pglite',
    ...base,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  };
}
