import { setImmediate } from 'node:timers';
import { DEFAULT_PACE, handEachPaced, type Pace } from './paced-hand-out.js';

interface Waiting<Job, Result> {
  readonly job: Job;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions<Job> {
  /**
   * At most one job of a key per statement (an upsert may touch a row only once in a
   * statement): a later job of a key waits for the next statement, in the order submitted.
   */
  readonly oneJobPer?: (job: Job) => string;
  /** At most this many jobs per statement (the rest go in the next); default 256. */
  readonly maxJobs?: number;
  /** How many of a statement's waiters a turn of the event loop resumes (`handOutPaced`). */
  readonly pace?: Pace;
}

export const DEFAULT_MAX_JOBS_PER_STATEMENT = 256;

/**
 * Group commit: jobs submitted in the same tick go to the database as one statement, and jobs
 * submitted while a statement is being written wait for it and go together in the next. With
 * many runs in flight a statement per job costs several times more (on PGlite the database
 * thread, on PostgreSQL a round trip and a `writev` on the loopback each — see bench/run-storage
 * and docs/performance.md). A tick alone is not enough when the answers that lead to jobs arrive
 * over several turns of the event loop (PGlite in its thread hands them out paced so).
 *
 * `write(jobs)` makes the one statement and returns each job's result in the jobs' order; if it
 * throws, every job of the statement rejects with that error — unless the database refused the
 * data (SQLSTATE class 22 or 23): then the jobs are written again in halves, and halves of those,
 * so only the bad job fails (about 2·log₂ n more statements for one bad job in n), stopping at
 * the first error that is not about the data (a lost database fails the rest at once). Results
 * are handed out paced by turns of the event loop (`handOutPaced`: as many per turn as fit in
 * ~2 ms); the next statement does not wait for that. Callers encode their jobs before `submit`, so one caller's bad value fails only it.
 */
export class GroupCommit<Job, Result> {
  #waiting: Waiting<Job, Result>[] = [];
  #writing = false;
  readonly #oneJobPer: ((job: Job) => string) | undefined;
  readonly #maxJobs: number;
  readonly #pace: Pace;

  constructor(
    private readonly write: (jobs: readonly Job[]) => Promise<readonly Result[]>,
    options: GroupCommitOptions<Job> = {},
  ) {
    this.#oneJobPer = options.oneJobPer;
    this.#maxJobs = options.maxJobs ?? DEFAULT_MAX_JOBS_PER_STATEMENT;
    this.#pace = options.pace ?? DEFAULT_PACE;
    if (!Number.isInteger(this.#maxJobs) || this.#maxJobs < 1)
      throw new RangeError(`group commit: maxJobs must be a whole number ≥ 1, got ${this.#maxJobs}`);
  }

  submit(job: Job): Promise<Result> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.push({ job, resolve, reject }) === 1 && !this.#writing)
        setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      const part = this.#take();
      if (part.length > 0) await this.#writeInParts(part); // none: every job's key threw
    } finally {
      this.#writing = false;
      // What came in meanwhile goes next, together.
      if (this.#waiting.length > 0) setImmediate(() => void this.#flush());
    }
  }

  /** Writes `part` as one statement, or — refused for its data — in halves; settles every job. */
  async #writeInParts(part: readonly Waiting<Job, Result>[]): Promise<unknown> {
    let results: readonly Result[];
    try {
      results = await this.write(part.map((w) => w.job));
      if (results.length !== part.length)
        throw new Error(`group commit: ${results.length} results for ${part.length} jobs`);
    } catch (error) {
      if (part.length === 1 || !isDataError(error)) {
        void handEachPaced(part, (w) => w.reject(error), this.#pace);
        return error;
      }
      const half = Math.ceil(part.length / 2);
      const failed = await this.#writeInParts(part.slice(0, half));
      if (failed !== undefined && !isDataError(failed)) {
        void handEachPaced(part.slice(half), (w) => w.reject(failed), this.#pace);
        return failed;
      }
      return this.#writeInParts(part.slice(half));
    }
    void handEachPaced(
      part.map((w, i) => () => w.resolve(results[i] as Result)),
      (settle) => settle(),
      this.#pace,
    );
    return undefined;
  }

  /**
   * The jobs of the next statement; those a key or the limit keeps out stay waiting, first in
   * line. A job whose key throws is rejected with that error and leaves the line.
   */
  #take(): Waiting<Job, Result>[] {
    const all = this.#waiting;
    const keyOf = this.#oneJobPer;
    if (keyOf === undefined) {
      this.#waiting = all.slice(this.#maxJobs);
      return all.length > this.#maxJobs ? all.slice(0, this.#maxJobs) : all;
    }
    const keys = new Set<string>();
    const taken: Waiting<Job, Result>[] = [];
    const left: Waiting<Job, Result>[] = [];
    for (const w of all) {
      let key: string;
      try {
        key = keyOf(w.job);
      } catch (error) {
        w.reject(error); // a job whose key cannot be made fails alone (it is not written)
        continue;
      }
      if (keys.has(key) || taken.length === this.#maxJobs) left.push(w);
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
