import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { PgQueryable } from '@reins/stores';

/**
 * The two databases the SQL stores are tested on: PGlite in memory (one instance per test
 * file) and this machine's PostgreSQL (CI has it too: unreachable is a failure, never a
 * skip). Every `fresh()` schema is new and empty; `close()` drops all of them.
 */
export interface TestDatabase {
  readonly name: 'pglite' | 'postgres';
  readonly db: PgQueryable;
  /** A new, empty schema: what a contract test's `open` stores into. */
  fresh(): Promise<{ schema: string; drop(): Promise<void> }>;
  close(): Promise<void>;
}

let schemas = 0;

function withSchemas(name: TestDatabase['name'], db: PgQueryable, end: () => Promise<void>): TestDatabase {
  const created = new Set<string>();
  const prefix = `reins_stores_${process.pid}_${Date.now().toString(36)}`;
  return {
    name,
    db,
    async fresh() {
      const schema = `${prefix}_${++schemas}`;
      await db.query(`CREATE SCHEMA ${schema}`);
      created.add(schema);
      return {
        schema,
        drop: async () => {
          await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          created.delete(schema);
        },
      };
    },
    async close() {
      for (const schema of created) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await end();
    },
  };
}

export async function openPglite(): Promise<TestDatabase> {
  const db = await PGlite.create();
  return withSchemas('pglite', db, () => db.close());
}

export async function openPostgres(): Promise<TestDatabase> {
  const pool = new pg.Pool({
    host: '127.0.0.1',
    port: 5432,
    user: 'postgres',
    database: 'test',
    connectionTimeoutMillis: 3_000,
    statement_timeout: 10_000,
  });
  await pool.query('SELECT 1'); // unreachable: the file fails here
  return withSchemas('postgres', pool, () => pool.end());
}
