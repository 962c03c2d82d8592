import { setImmediate } from 'node:timers';
import { Worker } from 'node:worker_threads';
import { handOutPaced } from '@reins/stores';
import { lockDataDir } from './data-dir-lock.js';
import type { Db, DbProbe, Queryable } from './db.js';
import type { PgliteReply, PgliteRequest, PgliteWorkerInit, WireError } from './pglite-protocol.js';

export interface PgliteThreadOptions {
  /** A directory on disk (created if missing); omitted → in memory (tests). */
  readonly dataDir?: string;
  /** Start from a `dumpDataDir()` tarball instead of running initdb (tests). */
  readonly loadDataDir?: Blob;
  /**
   * A transaction whose caller sends no statement, commit or rollback for this long is rolled
   * back (its next call fails with code `25P03`): one writer means every other statement waits
   * behind an open transaction, so a caller that never finishes must not hold the database.
   * Default 5 000 ms (`REINS_PGLITE_TX_IDLE_TIMEOUT_MS`); the time a statement runs does not count.
   */
  readonly transactionIdleTimeoutMs?: number;
}

export const PGLITE_THREAD_DEFAULTS = { transactionIdleTimeoutMs: 5_000 } as const;

const WORKER = new URL('./pglite-worker.js', import.meta.url);

/**
 * An error the database thread reported, with PostgreSQL's fields (`code`, `detail`,
 * `constraint`, …) as PGlite set them, so code that reads `error.code === '23505'` is unchanged.
 * Made where the caller awaits the answer, so its stack is the caller's (V8's async frames),
 * then the database thread's.
 */
export class PgliteThreadError extends Error {
  declare readonly code?: string;
  declare readonly detail?: string;
  declare readonly constraint?: string;
  declare readonly severity?: string;

  constructor(wire: WireError) {
    super(wire.message);
    Object.assign(this, wire.fields);
    this.name = wire.name;
    const thread = wire.stack?.split('\n').slice(1).join('\n');
    if (thread !== undefined && thread !== '') this.stack += `\n  (in the database thread)\n${thread}`;
  }
}

// A dead thread is a crashed server to the stores' `pgUnavailableReason` (SQLSTATE 57P02).
const crashed = (why: string): WireError => ({
  name: 'error',
  message: `the embedded database thread stopped (${why}); restart the server`,
  fields: { code: '57P02', severity: 'FATAL' },
});

type Reply = Extract<PgliteReply, { id: number }>;

type Answer =
  { readonly ok: true; readonly rows?: unknown[] } | { readonly ok: false; readonly error: WireError };

/** A request before it gets its id (an Omit per member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Call = WithoutId<PgliteRequest>;

/**
 * Answers are handed to their callers paced by turns of the event loop (`handOutPaced`): each
 * caller's continuation runs to its next wait (a model step, encoding events, its next
 * statement) before the next answer, and a turn hands out no more after ~2 ms; the loop then
 * runs its timers and sockets. The thread answers in bursts (everything queued behind a long
 * statement at once; Node delivers up to 1 000 messages per turn), and the continuations of a
 * burst would otherwise run as one block of the event loop: at 200 runs in flight, up to a
 * second. One answer per turn, as before, made the last of a burst of 200 wait ~3 s.
 *
 * Two exceptions. A transaction's answers are handed out at once: the transaction holds the
 * database's one writer, and its idle deadline runs in the thread from its last answer, so an
 * answer waiting here behind a burst would hold everyone up and could get it rolled back for
 * idling. And when the thread stops (closed, or crashed), the answers it gave before are handed
 * out first: a statement it answered is its caller's, never replaced by the stop.
 */
/** The main thread's end: one message per call, answered in order of PGlite's locks. */
class PgliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (answer: Answer) => void; reject: (error: Error) => void; inTransaction: boolean }
  >();
  #outbox: PgliteRequest[] = [];
  readonly #inbox: Reply[] = [];
  /** How many of the inbox's answers were handed out (the delivery under way and `#stop` share it). */
  #handed = 0;
  #delivering = false;
  #nextId = 0;
  #nextTx = 0;
  #stopped: WireError | undefined;
  readonly exited: Promise<void>;

  private constructor(worker: Worker, ready: (error?: Error) => void) {
    this.#worker = worker;
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: PgliteReply | readonly Reply[]) => {
      if (!Array.isArray(message)) {
        const first = message as Exclude<PgliteReply, { id: number }>;
        return ready(first.ready ? undefined : new PgliteThreadError(first.error));
      }
      for (const reply of message) {
        if (this.#pending.get(reply.id)?.inTransaction === true) this.#answerReply(reply);
        else this.#inbox.push(reply);
      }
      if (!this.#delivering && this.#handed < this.#inbox.length) {
        this.#delivering = true;
        setImmediate(() => this.#deliver());
      }
    });
    worker.on('error', (error) => {
      this.#stop(crashed(error.message));
      ready(error);
    });
    worker.on('exit', (code) => {
      this.#stop(crashed(`exit code ${code}`));
      ready(new PgliteThreadError(crashed(`exit code ${code}`)));
    });
  }

  /** Starts the thread and waits until PGlite is open there (or failed to open: thrown here). */
  static async start(init: PgliteWorkerInit): Promise<PgliteThread> {
    const worker = new Worker(WORKER, {
      workerData: init,
      transferList: init.loadDataDir === undefined ? [] : [init.loadDataDir.buffer],
    });
    let thread: PgliteThread | undefined;
    await new Promise<void>((resolve, reject) => {
      thread = new PgliteThread(worker, (error) => (error === undefined ? resolve() : reject(error)));
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    worker.unref(); // held only while a call waits: an idle database keeps no process alive
    return thread as unknown as PgliteThread; // set synchronously by the executor above
  }

  newTransactionId(): number {
    return ++this.#nextTx;
  }

  /**
   * Sends one request; its answer (rows, or the error as data) comes back in order. Requests
   * made in one tick go out as one message (each message wakes the database thread).
   */
  call(request: Call): Promise<Answer> {
    if (this.#stopped !== undefined) return Promise.resolve({ ok: false, error: this.#stopped });
    const id = ++this.#nextId;
    this.#outbox.push({ ...request, id } as PgliteRequest);
    if (this.#outbox.length === 1) queueMicrotask(() => this.#flush());
    if (this.#pending.size === 0) this.#worker.ref();
    const inTransaction = 'tx' in request && request.tx !== undefined;
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, inTransaction }));
  }

  #flush(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    try {
      this.#worker.postMessage(batch);
    } catch {
      // Structured clone refused a parameter (a function, a symbol, a class with private state):
      // that request fails, the others go.
      for (const request of batch) {
        try {
          this.#worker.postMessage([request]);
        } catch (error) {
          this.#fail(
            request.id,
            new TypeError(`a parameter cannot be sent to the database thread: ${(error as Error).message}`, {
              cause: error,
            }),
          );
        }
      }
    }
  }

  /** Hands queued answers to their callers, paced by turns of the event loop (see above). */
  #deliver(): void {
    void handOutPaced(
      () => this.#handNext(),
      undefined,
      () => this.#inbox.length - this.#handed,
    );
  }

  /** Hands the inbox's next answer to its caller; false once none is left (the delivery has ended). */
  #handNext(): boolean {
    const reply = this.#inbox[this.#handed++];
    try {
      if (reply !== undefined) this.#answerReply(reply);
    } finally {
      if (this.#handed >= this.#inbox.length) {
        // The last one: closed in the same step, so a reply that comes next starts a delivery of its own.
        this.#inbox.length = 0;
        this.#handed = 0;
        this.#delivering = false;
      } else if (this.#handed >= 1_024) {
        this.#inbox.splice(0, this.#handed); // what is delivered goes: the inbox never grows under load
        this.#handed = 0;
      }
    }
    return this.#delivering;
  }

  #answerReply(reply: Reply): void {
    this.#answer(reply.id, reply.ok ? { ok: true, rows: reply.rows } : { ok: false, error: reply.error });
  }

  #answer(id: number, answer: Answer): void {
    this.#take(id)?.resolve(answer);
  }

  #fail(id: number, error: Error): void {
    this.#take(id)?.reject(error);
  }

  #take(id: number) {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker.unref();
    return pending;
  }

  /** The answers already here go to their callers; every call still waiting, and every later one, fails with `why`. */
  #stop(why: WireError): void {
    this.#stopped ??= why;
    while (this.#delivering && this.#handNext()); // at once: no more answers come
    for (const id of [...this.#pending.keys()]) this.#answer(id, { ok: false, error: this.#stopped });
  }

  /** After `close`: calls fail as PGlite's own do once closed. */
  markClosed(): void {
    this.#stop({ name: 'Error', message: 'PGlite is closed', fields: {} });
  }

  terminate(): Promise<number> {
    return this.#worker.terminate();
  }
}

/**
 * The embedded database in a worker thread: the thread owns `PGlite.create({dataDir})`, this
 * thread sends it statements by message, so the event loop that serves HTTP never runs SQL.
 * The same `Db` as `openPgliteDb` (rows as PGlite parses them: Date, Uint8Array, bigint, JSON).
 * A data directory is locked for this process first (the thread is in this process).
 *
 * Transactions: `begin` waits for PGlite's transaction lock (one transaction at a time; any
 * other statement waits behind it), the callback's statements carry its id, then `commit` — or
 * `rollback` when the callback throws (the error is rethrown). A transaction idle for
 * `transactionIdleTimeoutMs` is rolled back by the thread.
 */
export async function openPgliteThread(options: PgliteThreadOptions = {}): Promise<Db> {
  const lock = options.dataDir === undefined ? undefined : await lockDataDir(options.dataDir);
  try {
    const thread = await PgliteThread.start({
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(options.loadDataDir === undefined
        ? {}
        : { loadDataDir: new Uint8Array(await options.loadDataDir.arrayBuffer()) }),
      idleTimeoutMs: options.transactionIdleTimeoutMs ?? PGLITE_THREAD_DEFAULTS.transactionIdleTimeoutMs,
    });
    return threadDb(thread, lock?.release);
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

/** Waits for the answer; a failure is thrown here, where the caller awaits (its stack). */
async function answered(
  thread: PgliteThread,
  request: Parameters<PgliteThread['call']>[0],
): Promise<unknown[]> {
  const answer = await thread.call(request);
  if (!answer.ok) throw new PgliteThreadError(answer.error);
  return answer.rows ?? [];
}

function queryable(thread: PgliteThread, tx?: number): Queryable {
  const bound = tx === undefined ? {} : { tx };
  return {
    query: async <R extends object>(sql: string, params: readonly unknown[] = []) =>
      (await answered(thread, { op: 'query', sql, params, ...bound })) as R[],
    exec: async (script) => {
      await answered(thread, { op: 'exec', sql: script, ...bound });
    },
  };
}

function threadDb(thread: PgliteThread, onClose?: () => Promise<void>): Db {
  let closing: Promise<void> | undefined;
  return {
    backend: 'pglite',
    ...queryable(thread),
    transaction: async (fn) => {
      const tx = thread.newTransactionId();
      await answered(thread, { op: 'begin', tx });
      let result;
      try {
        result = await fn(queryable(thread, tx));
      } catch (error) {
        // The caller's error is what it sees; a rollback that fails too changes nothing for it.
        await thread.call({ op: 'rollback', tx });
        throw error;
      }
      await answered(thread, { op: 'commit', tx });
      return result;
    },
    probe: async () => (await answered(thread, { op: 'probe' }))[0] as DbProbe,
    close: () =>
      (closing ??= (async () => {
        try {
          await answered(thread, { op: 'close' });
          thread.markClosed();
          // The thread ends by itself once PGlite is closed; a stuck one is stopped.
          const late = setTimeout(() => void thread.terminate(), 5_000);
          await thread.exited;
          clearTimeout(late);
        } finally {
          await onClose?.();
        }
      })()),
  };
}
