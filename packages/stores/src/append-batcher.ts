import { onePerTurn } from './one-per-turn.js';
import type { PgQueryable } from './pg-blob-store.js';

/** One run's append as it goes to the database: its encoded events and the run row's new state. */
export interface AppendJob {
  readonly runId: string;
  /** The event count the writer believes is stored: the guard against a stale writer. */
  readonly expected: number;
  readonly seqs: readonly number[];
  readonly bodies: readonly string[];
  readonly status: string;
  readonly updatedAt: number;
}

interface Waiting {
  readonly job: AppendJob;
  resolve(inserted: number): void;
  reject(error: unknown): void;
}

/**
 * Appends submitted in the same tick go to the database as one statement: with many runs in
 * flight each writing event by event, a statement per append costs ~8× more on PGlite (which
 * runs on the event loop's thread) — see bench/run-storage. Each run's row is updated only if
 * its count is the expected one, and its events are inserted only with that update, so the
 * statement is all-or-nothing per run and atomic as a whole. At most one job per run per
 * statement (the store orders a run's appends).
 *
 * One statement at a time (group commit): appends submitted while one is being written wait for
 * it and go together in the next. A tick alone is not enough when the answers that lead to
 * appends arrive one per turn of the event loop (PGlite in its thread hands them out so): each
 * run's append then had a statement of its own — 3.4 per run at 200 runs in flight, against
 * 0.01 with PGlite in the main thread.
 */
export class AppendBatcher {
  #waiting: Waiting[] = [];
  #writing = false;

  constructor(
    private readonly db: PgQueryable,
    private readonly runs: string,
    private readonly events: string,
  ) {}

  /** Resolves with how many of the job's events were inserted (all, or none when the guard failed). */
  submit(job: AppendJob): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.push({ job, resolve, reject }) === 1 && !this.#writing)
        setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      await this.#write();
    } finally {
      this.#writing = false;
      // What came in meanwhile goes next, together.
      if (this.#waiting.length > 0) setImmediate(() => void this.#flush());
    }
  }

  async #write(): Promise<void> {
    const waiting = this.#waiting;
    this.#waiting = [];
    const jobs = waiting.map((w) => w.job);
    try {
      const { rows } = await this.db.query(
        `WITH batch AS (
           SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::text[], $5::float8[])
             AS b (run_id, expected, added, status, updated_at)
         ),
         updated AS (
           UPDATE ${this.runs} r
           SET event_count = b.expected + b.added, status = b.status, updated_at = b.updated_at
           FROM batch b WHERE r.run_id = b.run_id AND r.event_count = b.expected
           RETURNING r.run_id
         )
         INSERT INTO ${this.events} (run_id, seq, body, bytes)
         SELECT e.run_id, e.seq, e.body, octet_length(e.body)
         FROM unnest($6::text[], $7::integer[], $8::text[]) AS e (run_id, seq, body)
         JOIN updated USING (run_id)
         ON CONFLICT (run_id, seq) DO NOTHING
         RETURNING run_id`,
        [
          jobs.map((j) => j.runId),
          jobs.map((j) => j.expected),
          jobs.map((j) => j.seqs.length),
          jobs.map((j) => j.status),
          jobs.map((j) => j.updatedAt),
          jobs.flatMap((j) => j.seqs.map(() => j.runId)),
          jobs.flatMap((j) => j.seqs),
          jobs.flatMap((j) => j.bodies),
        ],
      );
      const inserted = new Map<string, number>();
      for (const row of rows)
        inserted.set(String(row['run_id']), (inserted.get(String(row['run_id'])) ?? 0) + 1);
      // Handed out one per turn, not in a loop: see `onePerTurn`. The next statement does not
      // wait for this: appends made meanwhile gather for it as before.
      void onePerTurn(waiting, (w) => w.resolve(inserted.get(w.job.runId) ?? 0));
    } catch (error) {
      void onePerTurn(waiting, (w) => w.reject(error));
    }
  }
}
