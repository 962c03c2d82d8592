import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.js';

export interface PgliteDbOptions {
  /** A directory on disk (created if missing); omitted → in memory (tests). */
  readonly dataDir?: string;
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
  const pg = options.dataDir === undefined ? await PGlite.create() : await PGlite.create(options.dataDir);
  const base = wrap(pg);
  return {
    backend: 'pglite',
    ...base,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  };
}
