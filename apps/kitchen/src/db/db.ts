/**
 * The storage port: parameterized queries and transactions, nothing else. Two implementations
 * (PGlite embedded, PostgreSQL via `pg`) speak the same SQL dialect.
 *
 * Contract: `query` sends `sql` and `params` separately (never interpolated); values come back
 * as the driver parsed them — callers cast dates to text and counts to int in SQL so both
 * drivers agree. `exec` runs a multi-statement script without parameters (migrations only).
 * `transaction` commits when `fn` resolves and rolls back when it throws (and rethrows).
 */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  exec(script: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly backend: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Optional: the database's state, asked without queueing behind the statements it is running
   * (PGlite in its thread, one connection). Absent: ask it with a statement.
   */
  probe?(): Promise<DbProbe>;
}

export interface DbProbe {
  /** Statements waiting for their answer. */
  readonly waiting: number;
  /** Since a statement last succeeded (~0 when idle: the probe then runs `SELECT 1` itself). */
  readonly sinceOkMs: number;
}
