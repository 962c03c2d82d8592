// The worker thread that owns the embedded database (`pglite-thread.ts` starts it). Plain
// JavaScript, type-checked from its JSDoc, so the same file runs from the sources (tests) and,
// copied by the build, from dist/: a worker cannot load TypeScript.
import { Blob } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PreparedStatements } from './pglite-prepared.js';

/** @import { Transaction } from '@electric-sql/pglite' */
/** @import { PgliteReply, PgliteRequest, PgliteWorkerInit, WireError } from './pglite-protocol.js' */

/**
 * An open transaction: PGlite holds its transaction lock (every statement without this
 * transaction's id waits) until `end` settles the callback it runs.
 * @typedef {object} OpenTransaction
 * @property {Transaction | undefined} tx
 * @property {(how: 'commit' | Error) => void} end
 * @property {Promise<void>} done  settles once COMMIT or ROLLBACK ran
 * @property {number} busy  statements of it running now
 * @property {ReturnType<typeof setTimeout> | undefined} timer  the idle deadline, armed while `busy` is 0
 * @property {boolean} schema  it ran a statement that may change the schema
 */

const port = parentPort;
if (port === null) throw new Error('pglite-worker.js runs as a worker thread');
const init = /** @type {PgliteWorkerInit} */ (workerData);

/** @type {Map<number, OpenTransaction>} */
const open = new Map();
/** Transactions rolled back for idling: their caller learns it at its next message. @type {Map<number, Error>} */
const expired = new Map();
const ROLLBACK = new Error('rolled back by its caller');

/**
 * Answers go out together: those made in one turn of this thread's loop in one message. Every
 * message wakes the main thread (~50 µs of system time on this VM), and at 200 runs in flight a
 * message per statement was a third of the database thread's CPU.
 * @type {Extract<PgliteReply, { id: number }>[]}
 */
let outbox = [];

/** @param {PgliteReply} reply */
function send(reply) {
  if (!('id' in reply)) {
    port?.postMessage(reply);
    return;
  }
  outbox.push(reply);
  if (outbox.length === 1) setImmediate(flush);
}

function flush() {
  const batch = outbox;
  if (batch.length === 0) return;
  outbox = [];
  try {
    port?.postMessage(batch);
  } catch {
    // A value structured clone refuses (none of PGlite's parsed types is one): said, not lost.
    for (const reply of batch) {
      try {
        port?.postMessage([reply]);
      } catch (error) {
        port?.postMessage([{ id: reply.id, ok: false, error: toWire(error) }]);
      }
    }
  }
}

/**
 * An error as data. PGlite's errors carry PostgreSQL's fields (`code`, `detail`, `constraint`,
 * `table`, …) as own properties, which structured clone would drop: they are copied here.
 * @param {unknown} thrown @returns {WireError}
 */
function toWire(thrown) {
  if (!(thrown instanceof Error)) return { name: 'Error', message: String(thrown), fields: {} };
  /** @type {Record<string, string | number>} */
  const fields = {};
  for (const [key, value] of Object.entries(thrown)) {
    if (key === 'name' || key === 'message' || key === 'stack') continue;
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return {
    name: thrown.name,
    message: thrown.message,
    fields,
    ...(thrown.stack ? { stack: thrown.stack } : {}),
  };
}

/** @param {string} message @param {string} [code] */
function failure(message, code) {
  return Object.assign(new Error(message), code === undefined ? {} : { code, severity: 'ERROR' });
}

const pg = await PGlite.create({
  // Household memories recall by trigram similarity; PGlite loads contrib extensions only at create.
  extensions: { pg_trgm },
  ...(init.dataDir === undefined ? {} : { dataDir: init.dataDir }),
  ...(init.loadDataDir === undefined ? {} : { loadDataDir: new Blob([init.loadDataDir]) }),
}).catch((/** @type {unknown} */ error) => {
  send({ ready: false, error: toWire(error) });
  return undefined;
});

/** @param {number} txId @param {OpenTransaction} entry */
function armIdle(txId, entry) {
  clearTimeout(entry.timer);
  if (entry.busy > 0) return;
  entry.timer = setTimeout(() => {
    open.delete(txId);
    // PostgreSQL's idle_in_transaction_session_timeout answers with this code, too.
    const error = failure(
      `the transaction waited ${init.idleTimeoutMs} ms for its next statement and was rolled back ` +
        '(REINS_PGLITE_TX_IDLE_TIMEOUT_MS); everything else waits while a transaction is open',
      '25P03',
    );
    expired.set(txId, error);
    entry.end(error);
  }, init.idleTimeoutMs);
}

/**
 * Opens a transaction; resolves once it is open (answered) or BEGIN failed (answered too).
 * @param {PGlite} db @param {number} id @param {number} txId @returns {Promise<void>}
 */
function begin(db, id, txId) {
  /** @type {OpenTransaction} */
  const entry = {
    tx: undefined,
    end: () => undefined,
    done: Promise.resolve(),
    busy: 0,
    timer: undefined,
    schema: false,
  };
  /** @type {Promise<'commit' | Error>} */
  const ended = new Promise((resolve) => (entry.end = resolve));
  return new Promise((answered) => {
    entry.done = db
      .transaction(async (tx) => {
        entry.tx = tx;
        open.set(txId, entry);
        armIdle(txId, entry);
        lastOk = performance.now();
        send({ id, ok: true });
        answered();
        const how = await ended;
        clearTimeout(entry.timer);
        // Statements prepared after its schema change would outlive a rollback (or a failed
        // commit): forgotten here, while the transaction still holds the database.
        if (entry.schema) prepared.forget();
        if (how !== 'commit') throw how; // PGlite rolls back, then rethrows it
      })
      .finally(() => clearTimeout(entry.timer));
    // BEGIN itself failed (the database is closing): the caller is waiting for `begin`'s answer.
    entry.done.catch((/** @type {unknown} */ error) => {
      if (entry.tx !== undefined) return;
      send({ id, ok: false, error: toWire(error) });
      answered();
    });
  });
}

/**
 * Runs one statement of an open transaction; the idle deadline stops while it runs.
 * @template T @param {number} txId @param {(tx: Transaction) => Promise<T>} statement @returns {Promise<T>}
 */
async function inTransaction(txId, statement) {
  const entry = open.get(txId);
  if (entry?.tx === undefined) throw expired.get(txId) ?? failure('Transaction is closed');
  entry.busy++;
  clearTimeout(entry.timer);
  try {
    return await statement(entry.tx);
  } finally {
    entry.busy--;
    if (open.get(txId) === entry) armIdle(txId, entry);
  }
}

/** @param {number} txId @param {'commit' | 'rollback'} how */
async function finish(txId, how) {
  const entry = open.get(txId);
  if (entry === undefined) {
    const gone = expired.get(txId);
    expired.delete(txId);
    if (gone !== undefined && how === 'rollback') return; // rolled back already, as asked
    throw gone ?? failure('Transaction is closed');
  }
  open.delete(txId);
  entry.end(how === 'commit' ? 'commit' : ROLLBACK);
  try {
    await entry.done;
  } catch (error) {
    if (error !== ROLLBACK) throw error; // COMMIT of a failed transaction (25P02), or ROLLBACK failed
  }
}

/** Requests received and not answered yet (the probe excepted), and when one last succeeded. */
let waiting = 0;
let lastOk = performance.now();

/**
 * How the database is doing, without queueing behind its work: idle (nothing waiting, no
 * transaction open), a real `SELECT 1`; busy, how many wait and how long since a statement
 * last succeeded. Answered between two statements (one statement holds this thread while it runs).
 * @param {PGlite} db
 */
async function probe(db) {
  if (waiting === 0 && open.size === 0) {
    await db.query('SELECT 1');
    lastOk = performance.now();
  }
  return { waiting, sinceOkMs: Math.round(performance.now() - lastOk) };
}

/**
 * Requests wait here in arrival order and are started a few per turn of this thread's event
 * loop: a statement runs synchronously once started, and started all at once a burst of them
 * would run before the next message is even read — a probe among them would wait for all.
 * @type {Exclude<PgliteRequest, { op: 'probe' }>[]}
 */
const inbox = [];
let head = 0;
let starting = false;

/** @param {PGlite} db @param {PgliteRequest} request */
function receive(db, request) {
  if (request.op === 'probe') {
    probe(db).then(
      (state) => send({ id: request.id, ok: true, rows: [state] }),
      (error) => send({ id: request.id, ok: false, error: toWire(error) }),
    );
    return;
  }
  waiting++;
  inbox.push(request);
  if (!starting) {
    starting = true;
    setImmediate(() => startNext(db));
  }
}

// Started per turn: few enough that a probe waits for little, enough that answers go out together.
const STARTS_PER_TURN = 8;

/** Starts the next requests (PGlite's locks then keep them in this order), and yields. @param {PGlite} db */
function startNext(db) {
  for (let n = 0; n < STARTS_PER_TURN && head < inbox.length; n++) {
    const request = /** @type {Exclude<PgliteRequest, { op: 'probe' }>} */ (inbox[head++]);
    void statement(db, request).finally(() => waiting--);
  }
  if (head < inbox.length) {
    if (head >= 1_024) {
      inbox.splice(0, head); // started ones go: the inbox never grows under load
      head = 0;
    }
    setImmediate(() => startNext(db));
  } else {
    inbox.length = 0;
    head = 0;
    starting = false;
  }
}

/**
 * A statement that may have changed the schema ran (in transaction `tx`, if given): every text
 * is prepared again, and again when that transaction ends (it may roll the change back).
 * @param {number | undefined} tx
 */
function schemaChanged(tx) {
  prepared.forget();
  const entry = tx === undefined ? undefined : open.get(tx);
  if (entry !== undefined) entry.schema = true;
}

/**
 * A DML statement, prepared (`PreparedStatements`) under PGlite's locks as its `query` takes
 * them: outside a transaction, the transaction lock (none may be open) and the query lock, then
 * the data synced as `query` does; in one, the query lock.
 * @param {PGlite} db @param {string} sql @param {readonly unknown[]} params @param {number | undefined} tx
 */
async function runPrepared(db, sql, params, tx) {
  if (tx !== undefined)
    return inTransaction(tx, () => db.runExclusive(() => prepared.run(sql, params, true)));
  // As `query` and `transaction` do: a check first, then the lock, so the lock is taken in the
  // order the statements were started (a BEGIN started before this statement goes first).
  await db._checkReady();
  return db._runExclusiveTransaction(() =>
    db.runExclusive(async () => {
      const rows = await prepared.run(sql, params, false);
      await db.syncToFs();
      return rows;
    }),
  );
}

/** @param {PGlite} db @param {Exclude<PgliteRequest, { op: 'probe' }>} request */
async function statement(db, request) {
  const { id } = request;
  try {
    switch (request.op) {
      case 'query': {
        const { sql, params, tx } = request;
        let rows;
        if (prepared.accepts(sql)) rows = await runPrepared(db, sql, params, tx);
        else {
          const result =
            tx === undefined
              ? await db.query(sql, [...params])
              : await inTransaction(tx, (t) => t.query(sql, [...params]));
          rows = result.rows;
          if (PreparedStatements.mayChangeSchema(sql)) schemaChanged(tx);
        }
        lastOk = performance.now();
        send({ id, ok: true, rows });
        return;
      }
      case 'exec': {
        const { sql, tx } = request;
        try {
          await (tx === undefined ? db.exec(sql) : inTransaction(tx, (t) => t.exec(sql)));
        } finally {
          schemaChanged(tx); // a script may change the schema (and fail halfway)
        }
        lastOk = performance.now();
        send({ id, ok: true });
        return;
      }
      case 'begin':
        await begin(db, id, request.tx); // answers once the transaction is open
        return;
      case 'commit':
      case 'rollback':
        await finish(request.tx, request.op);
        lastOk = performance.now();
        send({ id, ok: true });
        return;
      case 'close':
        await db.close(); // after everything queued before it (PGlite waits for its locks)
        send({ id, ok: true });
        flush(); // now: the port closes next
        port?.close(); // nothing more comes: the thread ends
        return;
    }
  } catch (error) {
    send({ id, ok: false, error: toWire(error) });
  }
}

/** The database's prepared statements (when it opened). @type {PreparedStatements} */
let prepared;

if (pg !== undefined) {
  const db = pg;
  prepared = new PreparedStatements(db);
  port.on('message', (/** @type {readonly PgliteRequest[]} */ requests) => {
    for (const request of requests) receive(db, request);
  });
  send({ ready: true });
} else port.close();
