import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../src/db/db.js';
import { openStorage } from '../src/db/open-db.js';

/**
 * The backends every storage-touching suite runs on. PostgreSQL is the one on this machine
 * (trust auth); each test file gets its own schema, dropped afterwards. When PostgreSQL is not
 * reachable its suites are skipped with a printed reason — or fail, with KITCHEN_REQUIRE_PG=1.
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
  if (process.env['KITCHEN_REQUIRE_PG'] === '1')
    throw new Error(`PostgreSQL required but unreachable: ${pgProblem}`);
  console.warn(`[kitchen tests] PostgreSQL at ${PG_URL} unreachable (${pgProblem}): its suites are skipped`);
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

export const BACKENDS: readonly Backend[] = [
  {
    name: 'pglite',
    skip: false,
    open: async () => {
      const db = await openStorage({});
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
