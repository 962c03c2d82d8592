import pg from 'pg';
import { DependencyUnavailableError } from 'reins';
import { createRacing, pgUnavailableReason } from '@reins/stores';
import type { Db, Queryable } from './db.js';
import { PoolGate } from './pool-gate.js';
import { StatementNames } from './statement-names.js';

export interface PgDbOptions {
  readonly connectionString: string;
  /** Tables live in this schema (created if missing); default `public`. Tests use one per file. */
  readonly schema?: string;
  /** The pool size of one instance. Default 10 (`REINS_DB_POOL_SIZE`). */
  readonly maxConnections?: number;
  /**
   * While every connection is busy, a statement waits this long for one (in order), then fails
   * as unavailable: a queue under load is not an outage. Default 5 000 ms (`REINS_DB_POOL_WAIT_MS`).
   */
  readonly poolWaitMs?: number;
  /**
   * A new connection within this long (pg waits forever by default). Default 1 000 ms
   * (`REINS_DB_CONNECT_TIMEOUT_MS`).
   */
  readonly connectionTimeoutMs?: number;
  /**
   * The longest wait for one statement's answer (`query_timeout`: also when the server cannot
   * even say it is late). The server cancels the statement itself a little earlier
   * (`statement_timeout`), so a slow statement on a live server ends cleanly. Default 1 500 ms
   * (`REINS_DB_QUERY_TIMEOUT_MS`); the kitchen's statements take milliseconds.
   */
  readonly queryTimeoutMs?: number;
  /** `exec` (migrations only) may take this long per script. Default 60 000 ms. */
  readonly migrationTimeoutMs?: number;
  /**
   * How many distinct statement texts are prepared by name on each connection (parsed and
   * planned once, then only bound and run); later texts run unnamed. 0: none. Default 256.
   */
  readonly preparedStatements?: number;
}

export const PG_DB_DEFAULTS = {
  maxConnections: 10,
  poolWaitMs: 5_000,
  connectionTimeoutMs: 1_000,
  queryTimeoutMs: 1_500,
  migrationTimeoutMs: 60_000,
  preparedStatements: 256,
} as const;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A failure meaning PostgreSQL cannot answer now (refused, unreachable, timed out, restarting)
 * becomes a `DependencyUnavailableError` (503 with `Retry-After` at the HTTP boundary);
 * anything else (a bug, a constraint) is returned as it was.
 */
export function databaseFailure(thrown: unknown): unknown {
  if (thrown instanceof DependencyUnavailableError) return thrown;
  const reason = pgUnavailableReason(thrown);
  return reason === undefined
    ? thrown
    : new DependencyUnavailableError(
        'database',
        `the database is unavailable (${reason}); try again shortly`,
        {
          cause: thrown,
        },
      );
}

/** Called with every failure that means the database is unreachable (not a slow statement). */
type OnOutage = (error: DependencyUnavailableError) => void;

async function guarded<T>(call: () => Promise<T>, onOutage?: OnOutage): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    const failure = databaseFailure(thrown);
    // A statement the live server cancelled (57014) says nothing about the others' chances.
    if (failure instanceof DependencyUnavailableError && (thrown as { code?: unknown }).code !== '57014')
      onOutage?.(failure);
    throw failure;
  }
}

// The server-side cancel comes this much before the client stops waiting.
const serverTimeout = (queryTimeoutMs: number): number =>
  Math.max(Math.round(queryTimeoutMs * 0.8), queryTimeoutMs - 250);

/**
 * A failed statement that leaves the connection's prepared statements in doubt: one the driver
 * could not send whole (no SQLSTATE: pg closes the named statement it began, yet keeps it as
 * prepared), or one whose table changed under it (0A000, "cached plan must not change result
 * type": it fails again at every call on that connection).
 */
function spoilsConnection(thrown: unknown): boolean {
  const { code, message } = (thrown ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return true;
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change');
}

/**
 * `turn`: how a statement gets its connection (the pool's gate; a transaction's own: at once).
 * `names`: the pool's prepared statement names (see `StatementNames`). `spoiled`: told of a
 * failure after which the connection must not be reused (`spoilsConnection`; the pool drops a
 * client whose statement failed by itself).
 */
function wrap(
  client: Pick<pg.PoolClient, 'query'>,
  migrationTimeoutMs: number,
  names: StatementNames,
  turn: <T>(use: () => Promise<T>) => Promise<T> = (use) => use(),
  onOutage?: OnOutage,
  spoiled?: (thrown: unknown) => void,
): Queryable {
  const run = async <R extends object>(config: pg.QueryConfig) => {
    try {
      return await client.query<R & pg.QueryResultRow>(config);
    } catch (thrown) {
      if (spoiled !== undefined && spoilsConnection(thrown)) spoiled(thrown);
      throw thrown;
    }
  };
  return {
    query: async <R extends object>(sql: string, params: readonly unknown[] = []) => {
      const config: pg.QueryConfig = { text: sql, values: [...params] };
      const name = names.nameOf(sql);
      if (name !== undefined) config.name = name;
      return (await turn(() => guarded(() => run<R>(config), onOutage))).rows;
    },
    exec: async (script) => {
      // No parameters → simple protocol: several statements, one implicit transaction (or the
      // caller's), so `SET LOCAL` lifts the statement deadline for this script only.
      // pg reads a per-query `query_timeout` (client.js); @types/pg does not declare it.
      const config: pg.QueryConfig & { query_timeout: number } = {
        text: `SET LOCAL statement_timeout = ${serverTimeout(migrationTimeoutMs)};\n${script}`,
        query_timeout: migrationTimeoutMs,
      };
      await turn(() => guarded(() => client.query(config), onOutage));
    },
  };
}

/** PostgreSQL through a `pg` Pool, with the deadlines pg leaves off by default. */
export async function openPgDb(options: PgDbOptions): Promise<Db> {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const queryTimeoutMs = options.queryTimeoutMs ?? PG_DB_DEFAULTS.queryTimeoutMs;
  const migrationTimeoutMs = options.migrationTimeoutMs ?? PG_DB_DEFAULTS.migrationTimeoutMs;
  const size = options.maxConnections ?? PG_DB_DEFAULTS.maxConnections;
  const poolWaitMs = options.poolWaitMs ?? PG_DB_DEFAULTS.poolWaitMs;
  const poolOptions = {
    connectionString: options.connectionString,
    max: size,
    // Only opening a connection is bounded by this: the gate below never lets a statement wait
    // in the pool's own queue.
    connectionTimeoutMillis: options.connectionTimeoutMs ?? PG_DB_DEFAULTS.connectionTimeoutMs,
    statement_timeout: serverTimeout(queryTimeoutMs),
    query_timeout: queryTimeoutMs,
    // A peer that vanished without a FIN (a dead host) is noticed on idle connections too.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: `-c search_path=${schema}`,
  };
  if (schema !== 'public') {
    // The schema must exist before a connection uses it as its search path.
    const admin = new pg.Client({ ...poolOptions, options: undefined });
    admin.on('error', () => undefined);
    try {
      await guarded(() => admin.connect());
      // Instances starting together may both create it: the one that lost the race tries again.
      await guarded(() =>
        createRacing(async () => {
          await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        }),
      );
    } finally {
      await admin.end().catch(() => undefined);
    }
  }
  const pool = new pg.Pool(poolOptions);
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const gate = new PoolGate({
    size,
    waitMs: poolWaitMs,
    busy: () =>
      new DependencyUnavailableError(
        'database',
        `all ${size} database connections stayed busy for ${poolWaitMs} ms (REINS_DB_POOL_SIZE); try again shortly`,
      ),
  });
  // The database is unreachable: the statements queued behind would each spend a deadline on it.
  const onOutage: OnOutage = (error) => gate.failWaiting(error);
  const turn = <T>(use: () => Promise<T>) => gate.run(use);
  const names = new StatementNames(options.preparedStatements ?? PG_DB_DEFAULTS.preparedStatements);
  return {
    backend: 'postgres',
    ...wrap(pool, migrationTimeoutMs, names, turn, onOutage),
    transaction: (fn) => turn(() => transaction(fn)),
    close: () => pool.end(),
  };

  async function transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await guarded(() => pool.connect(), onOutage);
    let broken: Error | undefined;
    // A statement left the connection in doubt: it is destroyed at the end, not reused.
    let spoiled: Error | undefined;
    const spoil = (thrown: unknown): void => {
      spoiled ??= thrown instanceof Error ? thrown : new Error(String(thrown));
    };
    try {
      await guarded(() => client.query('BEGIN'), onOutage);
      const result = await fn(wrap(client, migrationTimeoutMs, names, undefined, onOutage, spoil));
      await guarded(() => client.query('COMMIT'), onOutage);
      return result;
    } catch (error) {
      // A connection that failed is dropped, not rolled back: a ROLLBACK on a dead link would
      // spend another deadline, and the server rolls back a transaction whose connection dies.
      if (error instanceof DependencyUnavailableError) broken = error;
      else if (spoiled !== undefined)
        broken = spoiled; // destroyed: the server rolls back
      else
        broken = await client.query('ROLLBACK').then(
          () => undefined,
          (rollback: unknown) => (rollback instanceof Error ? rollback : new Error('ROLLBACK failed')),
        );
      throw error;
    } finally {
      client.release(broken ?? spoiled); // with an error: the client is destroyed, never reused
    }
  }
}
