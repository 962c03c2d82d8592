import type { Db } from './db.js';
import { migrate } from './migrate.js';
import { openPgDb } from './pg-db.js';
import { openPgliteDb } from './pglite-db.js';

export interface StorageOptions {
  /** PostgreSQL when set; otherwise PGlite. */
  readonly databaseUrl?: string;
  /** PGlite's data directory; omitted → in memory. */
  readonly dataDir?: string;
  /** PostgreSQL schema (default `public`). */
  readonly schema?: string;
  /** PostgreSQL: see `PgDbOptions.connectionTimeoutMs` (default 1 000 ms). */
  readonly connectTimeoutMs?: number;
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
        })
      : await openPgliteDb(options.dataDir === undefined ? {} : { dataDir: options.dataDir });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
