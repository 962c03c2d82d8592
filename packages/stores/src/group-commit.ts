import { setImmediate } from 'node:timers';
import { onePerTurn } from './one-per-turn.js';

interface Waiting<Job, Result> {
  readonly job: Job;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Group commit: jobs submitted in the same tick go to the database as one statement, and jobs
 * submitted while a statement is being written wait for it and go together in the next. With
 * many runs in flight a statement per job costs several times more (on PGlite the database
 * thread, on PostgreSQL a round trip and a `writev` on the loopback each — see bench/run-storage
 * and docs/performance.md). A tick alone is not enough when the answers that lead to jobs arrive
 * one per turn of the event loop (PGlite in its thread hands them out so).
 *
 * `write(jobs)` makes the one statement and returns each job's result in the jobs' order; if it
 * throws, every job of the statement rejects with that error — unless the database refused the
 * data (SQLSTATE class 22 or 23): then each job is written alone, and only the bad one fails. Results are handed out one per
 * turn of the event loop (`onePerTurn`), and the next statement does not wait for that.
 */
export class GroupCommit<Job, Result> {
  #waiting: Waiting<Job, Result>[] = [];
  #writing = false;

  /**
   * @param write makes the statement of `jobs`
   * @param oneJobPer at most one job of a key per statement (an upsert may touch a row only once
   *   in a statement): a later job of a key waits for the next statement, in the order submitted
   */
  constructor(
    private readonly write: (jobs: readonly Job[]) => Promise<readonly Result[]>,
    private readonly oneJobPer?: (job: Job) => string,
  ) {}

  submit(job: Job): Promise<Result> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.push({ job, resolve, reject }) === 1 && !this.#writing)
        setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      await this.#writeWaiting();
    } finally {
      this.#writing = false;
      // What came in meanwhile goes next, together.
      if (this.#waiting.length > 0) setImmediate(() => void this.#flush());
    }
  }

  async #writeWaiting(): Promise<void> {
    const waiting = this.#take();
    const jobs = waiting.map((w) => w.job);
    let settle: (() => void)[];
    try {
      const results = await this.#written(jobs);
      settle = waiting.map((w, i) => () => w.resolve(results[i] as Result));
    } catch (error) {
      if (waiting.length > 1 && isDataError(error)) {
        // One job's data may be what the database refused (a NUL in a text): each alone, so
        // only that job fails.
        settle = [];
        for (const w of waiting) {
          try {
            const [result] = await this.#written([w.job]);
            settle.push(() => w.resolve(result as Result));
          } catch (alone) {
            settle.push(() => w.reject(alone));
          }
        }
      } else settle = waiting.map((w) => () => w.reject(error));
    }
    void onePerTurn(settle, (one) => one());
  }

  async #written(jobs: readonly Job[]): Promise<readonly Result[]> {
    const results = await this.write(jobs);
    if (results.length !== jobs.length)
      throw new Error(`group commit: ${results.length} results for ${jobs.length} jobs`);
    return results;
  }

  /** The jobs of the next statement; those a key keeps out stay waiting, first in line. */
  #take(): Waiting<Job, Result>[] {
    const all = this.#waiting;
    const keyOf = this.oneJobPer;
    if (keyOf === undefined) {
      this.#waiting = [];
      return all;
    }
    const keys = new Set<string>();
    const taken: Waiting<Job, Result>[] = [];
    const left: Waiting<Job, Result>[] = [];
    for (const w of all) {
      const key = keyOf(w.job);
      if (keys.has(key)) left.push(w);
      else {
        keys.add(key);
        taken.push(w);
      }
    }
    this.#waiting = left;
    return taken;
  }
}

/** SQLSTATE class 22 (data exception) or 23 (integrity constraint violation): about the data sent. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
