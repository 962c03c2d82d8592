import pg from 'pg';
import type { Db, Queryable } from './db.js';

export interface PgDbOptions {
  readonly connectionString: string;
  /** Tables live in this schema (created if missing); default `public`. Tests use one per file. */
  readonly schema?: string;
  /** Default 10: the pool size of one API instance. */
  readonly maxConnections?: number;
  /** Wait for a free connection at most this long (pg waits forever by default). Default 5 s. */
  readonly connectionTimeoutMs?: number;
  /** Server-side cap per statement. Default 10 s. */
  readonly statementTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function wrap(client: Pick<pg.PoolClient, 'query'>): Queryable {
  return {
    query: async <R extends object>(sql: string, params: readonly unknown[] = []) =>
      (await client.query<R & pg.QueryResultRow>(sql, [...params])).rows,
    exec: async (script) => {
      await client.query(script); // no parameters → simple protocol, several statements allowed
    },
  };
}

/** PostgreSQL through a `pg` Pool with the deadlines pg leaves off by default. */
export async function openPgDb(options: PgDbOptions): Promise<Db> {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const poolOptions = {
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 2_000,
    options: `-c search_path=${schema}`,
  };
  if (schema !== 'public') {
    // The schema must exist before a connection uses it as its search path.
    const admin = new pg.Client({ ...poolOptions, options: undefined });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool(poolOptions);
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return {
    backend: 'postgres',
    ...wrap(pool),
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
