// @ts-check
/**
 * Preloaded into the kitchen by `run.js --count-statements` (`node --import`): counts the SQL
 * statements the server sends, by their text (whitespace folded), and writes the counts to
 * `KITCHEN_LOAD_SQL_FILE` every 500 ms. PostgreSQL: every `pg` client query (a transaction's
 * BEGIN and COMMIT included). PGlite: every `query` / `exec`, in a transaction too (BEGIN and
 * COMMIT counted as such) — in the thread that runs PGlite: a preload runs in worker threads too.
 * With each count, the time to its answer (`timed`).
 * Measurement only: it wraps the drivers' prototypes.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';
import { isMainThread, threadId } from 'node:worker_threads';

const file = process.env['KITCHEN_LOAD_SQL_FILE'];
/** @type {Map<string, number>} */
const counts = new Map();
const keyOf = (/** @type {unknown} */ sql) => {
  const text = typeof sql === 'string' ? sql : String(/** @type {any} */ (sql)?.text ?? sql);
  return text.replace(/\s+/g, ' ').trim().slice(0, 160);
};
const count = (/** @type {unknown} */ sql) => {
  const key = keyOf(sql);
  counts.set(key, (counts.get(key) ?? 0) + 1);
};
/**
 * Counts the statement and adds the milliseconds from the call to its answer under `ms:<text>`.
 * In PGlite's thread statements run one at a time, so that is the database's time for it; with
 * `pg` it is the round trip on one connection (the server's time plus the socket's).
 */
const timed = (/** @type {unknown} */ sql, /** @type {unknown} */ result) => {
  count(sql);
  if (!(result instanceof Promise)) return result;
  const started = performance.now();
  const key = `ms:${keyOf(sql)}`;
  const add = () => counts.set(key, (counts.get(key) ?? 0) + (performance.now() - started));
  result.then(add, add);
  return result;
};

if (file !== undefined) {
  // No top-level await here: a preload that awaits while the loop has nothing else to do ends
  // the process with code 13 (seen under load). Patched once loaded; what runs before is not counted.
  if (isMainThread)
    void import('pg')
      .then(({ default: pg }) => {
        const query = pg.Client.prototype.query;
        /** @type {any} */ (pg.Client.prototype).query = function (/** @type {any[]} */ ...args) {
          return timed(args[0], /** @type {any} */ (query).apply(this, args));
        };
      })
      .catch(() => undefined);
  // The module instance the kitchen imports (ESM), in this (possibly worker) thread.
  void import('@electric-sql/pglite')
    .then(({ PGlite }) => {
      // Wrapped by name, whatever their signatures: measurement only.
      const proto = /** @type {any} */ (PGlite.prototype);
      for (const name of ['query', 'exec']) {
        const original = proto[name];
        proto[name] = function (/** @type {unknown[]} */ ...args) {
          return timed(args[0], original.apply(this, args));
        };
      }
      const transaction = proto.transaction;
      proto.transaction = function (/** @type {(tx: any) => Promise<unknown>} */ fn) {
        count('BEGIN');
        count('COMMIT or ROLLBACK');
        return transaction.call(this, (/** @type {any} */ tx) =>
          fn({
            ...tx,
            query: (/** @type {unknown[]} */ ...a) => timed(a[0], tx.query(...a)),
            exec: (/** @type {unknown[]} */ ...a) => timed(a[0], tx.exec(...a)),
            rollback: () => tx.rollback(),
            get closed() {
              return tx.closed;
            },
          }),
        );
      };
    })
    .catch(() => undefined);

  const out = `${file}.${isMainThread ? 'main' : threadId}`;
  setInterval(() => writeFileSync(out, JSON.stringify(Object.fromEntries(counts))), 500).unref();
}
