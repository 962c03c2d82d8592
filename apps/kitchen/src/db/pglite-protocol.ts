/**
 * The messages between the main thread (`pglite-thread.ts`) and the worker thread that owns the
 * PGlite instance (`pglite-worker.js`). Every value crosses by structured clone: SQL text,
 * parameters, and rows as PGlite parsed them (Date, Uint8Array, bigint, parsed JSON all survive).
 */

/** `workerData`: what the worker opens. */
export interface PgliteWorkerInit {
  /** A directory on disk; omitted → in memory. */
  readonly dataDir?: string;
  /** A `dumpDataDir()` tarball to start from, as bytes (transferred, not copied). */
  readonly loadDataDir?: Uint8Array<ArrayBuffer>;
  /** An open transaction waiting this long for its caller's next statement is rolled back. */
  readonly idleTimeoutMs: number;
}

/** Main → worker. `tx` binds a statement to an open transaction; without it, it waits for none. */
export type PgliteRequest =
  | {
      readonly id: number;
      readonly op: 'query';
      readonly sql: string;
      readonly params: readonly unknown[];
      readonly tx?: number;
    }
  | { readonly id: number; readonly op: 'exec'; readonly sql: string; readonly tx?: number }
  | { readonly id: number; readonly op: 'begin' | 'commit' | 'rollback'; readonly tx: number }
  | { readonly id: number; readonly op: 'close' }
  /** Answered without queueing behind the statements: one row, a `DbProbe` (`db.ts`). */
  | { readonly id: number; readonly op: 'probe' };

/** An error as data: structured clone keeps only `name`/`message`/`stack` of an Error. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  /** PostgreSQL's error fields (`code`, `detail`, `constraint`, …) as the driver set them. */
  readonly fields: Readonly<Record<string, string | number>>;
  readonly stack?: string;
}

/** Worker → main: one reply per request, and one `ready` when PGlite is open (or failed to open). */
export type PgliteReply =
  | { readonly id: number; readonly ok: true; readonly rows?: unknown[] }
  | { readonly id: number; readonly ok: false; readonly error: WireError }
  | { readonly ready: true }
  | { readonly ready: false; readonly error: WireError };

/** SQLSTATE of a transaction rolled back because its caller went quiet (PostgreSQL's own code). */
export const IDLE_IN_TRANSACTION = '25P03';
