import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Db } from '../src/db/db.js';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { openStorage } from '../src/db/open-db.js';
import { openPgliteDb, pgliteDb } from '../src/db/pglite-db.js';
import { openPgliteThread } from '../src/db/pglite-thread.js';

/**
 * The backends every storage-touching suite runs on. PostgreSQL is the one on this machine
 * (trust auth); each test file gets its own schema, dropped afterwards. When PostgreSQL is not
 * reachable its suites are skipped with a printed reason — or fail, with KITCHEN_REQUIRE_PG=1 or in CI
 * (CI=true: a missing service there is a failure, never a silent skip).
 */
export const PG_URL = process.env['KITCHEN_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

async function pgReachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const pgProblem = await pgReachable();
if (pgProblem !== undefined) {
  if (process.env['KITCHEN_REQUIRE_PG'] === '1' || process.env['CI'] === 'true')
    throw new Error(`PostgreSQL required but unreachable: ${pgProblem}`);
  console.warn(`[kitchen tests] PostgreSQL at ${PG_URL} unreachable (${pgProblem}): its suites are skipped`);
}

/**
 * A migrated, empty PGlite data directory as a tarball, made once per migration set and kept in
 * the temp directory: each test file then starts its own instance from it in ~0.5 s instead of
 * running initdb (~5 s). Keyed by the migrations' text, so a changed migration makes a new one.
 */
const PGLITE_VERSION =
  (
    JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    }
  ).dependencies['@electric-sql/pglite'] ?? 'unknown';

export async function pgliteTemplate(): Promise<Blob> {
  const migrations = await loadMigrations();
  const key = createHash('sha256')
    .update(JSON.stringify(migrations))
    .update(PGLITE_VERSION)
    .digest('hex')
    .slice(0, 16);
  const file = join(tmpdir(), `kitchen-pglite-template-${key}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const pg = await PGlite.create();
    await migrate(pgliteDb(pg), migrations);
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    // Written aside and renamed: a file running at the same moment never reads half a tarball.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
    return dump;
  }
}

export interface OpenedBackend {
  readonly db: Db;
  /** Closes the database; on PostgreSQL also drops the file's schema. */
  dispose(): Promise<void>;
}

export interface Backend {
  readonly name: 'pglite' | 'postgres';
  readonly skip: boolean;
  open(): Promise<OpenedBackend>;
}

/**
 * PGlite as `npm start` opens it: in a worker thread. `KITCHEN_TEST_PGLITE_THREAD=off` runs the
 * suites on PGlite in this thread instead (the `REINS_PGLITE_THREAD=off` fallback).
 */
const PGLITE_THREAD = process.env['KITCHEN_TEST_PGLITE_THREAD'] !== 'off';

export const BACKENDS: readonly Backend[] = [
  {
    name: 'pglite',
    skip: false,
    open: async () => {
      const loadDataDir = await pgliteTemplate();
      const db = PGLITE_THREAD
        ? await openPgliteThread({ loadDataDir })
        : await openPgliteDb({ loadDataDir });
      await migrate(db); // a no-op on the template; still checks it is current
      return { db, dispose: () => db.close() };
    },
  },
  {
    name: 'postgres',
    skip: pgProblem !== undefined,
    open: async () => {
      const schema = `kitchen_test_${randomBytes(6).toString('hex')}`;
      const db = await openStorage({ databaseUrl: PG_URL, schema });
      return {
        db,
        dispose: async () => {
          await db.close();
          const client = new pg.Client({ connectionString: PG_URL });
          await client.connect();
          await client.query(`DROP SCHEMA ${schema} CASCADE`);
          await client.end();
        },
      };
    },
  },
];
