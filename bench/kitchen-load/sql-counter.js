// @ts-check
/**
 * Preloaded into the kitchen by `run.js --count-statements` (`node --import`): counts the SQL
 * statements the server sends, by their text (whitespace folded), and writes the counts to
 * `KITCHEN_LOAD_SQL_FILE` every 500 ms. PostgreSQL: every `pg` client query (a transaction's
 * BEGIN and COMMIT included). PGlite: every `query` / `exec`, in a transaction too (BEGIN and
 * COMMIT counted as such) — in the thread that runs PGlite: a preload runs in worker threads too.
 * Measurement only: it wraps the drivers' prototypes.
 */
import { writeFileSync } from 'node:fs';
import { setInterval } from 'node:timers';
import { isMainThread, threadId } from 'node:worker_threads';

const file = process.env['KITCHEN_LOAD_SQL_FILE'];
/** @type {Map<string, number>} */
const counts = new Map();
const count = (/** @type {unknown} */ sql) => {
  const text = typeof sql === 'string' ? sql : String(/** @type {any} */ (sql)?.text ?? sql);
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 160);
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

if (file !== undefined) {
  // No top-level await here: a preload that awaits while the loop has nothing else to do ends
  // the process with code 13 (seen under load). Patched once loaded; what runs before is not counted.
  if (isMainThread)
    void import('pg')
      .then(({ default: pg }) => {
        const query = pg.Client.prototype.query;
        /** @type {any} */ (pg.Client.prototype).query = function (/** @type {any[]} */ ...args) {
          count(args[0]);
          return /** @type {any} */ (query).apply(this, args);
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
          count(args[0]);
          return original.apply(this, args);
        };
      }
      const transaction = proto.transaction;
      proto.transaction = function (/** @type {(tx: any) => Promise<unknown>} */ fn) {
        count('BEGIN');
        count('COMMIT or ROLLBACK');
        return transaction.call(this, (/** @type {any} */ tx) =>
          fn({
            ...tx,
            query: (/** @type {unknown[]} */ ...a) => (count(a[0]), tx.query(...a)),
            exec: (/** @type {unknown[]} */ ...a) => (count(a[0]), tx.exec(...a)),
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
