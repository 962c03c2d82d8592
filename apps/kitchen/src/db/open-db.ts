import type { Db } from './db.js';
import { migrate } from './migrate.js';
import { openPgDb } from './pg-db.js';
import { openPgliteThread } from './pglite-thread.js';

export interface StorageOptions {
  /** PostgreSQL when set; otherwise PGlite. */
  readonly databaseUrl?: string;
  /** PGlite's data directory; omitted → in memory. */
  readonly dataDir?: string;
  /**
   * PGlite in a worker thread (default `true`, `REINS_PGLITE_THREAD=on`): the event loop that
   * serves requests never runs SQL. `false`: in this thread, as before (`openPgliteDb`).
   */
  readonly pgliteThread?: boolean;
  /** PGlite in a thread: see `PgliteThreadOptions.transactionIdleTimeoutMs` (default 5 000 ms). */
  readonly transactionIdleTimeoutMs?: number;
  /** PostgreSQL schema (default `public`). */
  readonly schema?: string;
  /** PostgreSQL: see `PgDbOptions.connectionTimeoutMs` (default 1 000 ms). */
  readonly connectTimeoutMs?: number;
  /** PostgreSQL: see `PgDbOptions.maxConnections` (default 10). */
  readonly poolSize?: number;
  /** PostgreSQL: see `PgDbOptions.poolWaitMs` (default 5 000 ms). */
  readonly poolWaitMs?: number;
  /** PostgreSQL: see `PgDbOptions.queryTimeoutMs` (default 1 500 ms). */
  readonly queryTimeoutMs?: number;
}

/** Opens the configured backend and brings its schema up to date. */
export async function openStorage(options: StorageOptions): Promise<Db> {
  const db =
    options.databaseUrl !== undefined
      ? await openPgDb({
          connectionString: options.databaseUrl,
          ...(options.schema === undefined ? {} : { schema: options.schema }),
          ...(options.connectTimeoutMs === undefined
            ? {}
            : { connectionTimeoutMs: options.connectTimeoutMs }),
          ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
          ...(options.poolSize === undefined ? {} : { maxConnections: options.poolSize }),
          ...(options.poolWaitMs === undefined ? {} : { poolWaitMs: options.poolWaitMs }),
        })
      : await openPglite(options);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

async function openPglite(options: StorageOptions): Promise<Db> {
  const dataDir = options.dataDir === undefined ? {} : { dataDir: options.dataDir };
  if (options.pgliteThread === false) {
    // Loaded only here: with the thread, this thread never loads PGlite at all.
    const { openPgliteDb } = await import('./pglite-db.js');
    return openPgliteDb(dataDir);
  }
  return openPgliteThread({
    ...dataDir,
    ...(options.transactionIdleTimeoutMs === undefined
      ? {}
      : { transactionIdleTimeoutMs: options.transactionIdleTimeoutMs }),
  });
}
