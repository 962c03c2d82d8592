import type { NewStoredRun } from 'reins';
import { GroupCommit } from './group-commit.js';
import type { PgQueryable } from './pg-blob-store.js';
import { wellFormed } from './well-formed.js';

/** A new run's row as it goes to the database (its request as JSON text, encoded by the caller). */
export interface CreateJob {
  readonly runId: string;
  readonly ownerId: string;
  readonly agent: string;
  readonly conversationId: string | null;
  readonly request: string;
  readonly createdAt: number;
}

/** The job of `run`; throws (for its caller alone) when its request cannot be JSON. */
export function createJob(run: NewStoredRun): CreateJob {
  return {
    runId: run.runId,
    ownerId: run.ownerId,
    agent: run.agent,
    conversationId: run.conversationId ?? null,
    request: JSON.stringify(run.request),
    createdAt: run.createdAt,
  };
}

/**
 * New runs' rows, many runs' as one statement (`GroupCommit`): at 200 runs in flight a statement
 * per run start was one of the ~8 each run made. Each job's result says whether its row was
 * made: false for an id that exists already (a second job for an id waits for the next
 * statement, where the first has taken it).
 */
export function createBatcher(db: PgQueryable, runs: string): GroupCommit<CreateJob, boolean> {
  return new GroupCommit(
    async (jobs) => {
      const { rows } = await db.query(
        `INSERT INTO ${runs} (run_id, owner_id, agent, conversation_id, request, status, created_at, updated_at, event_count)
         SELECT b.run_id, b.owner_id, b.agent, b.conversation_id, b.request::jsonb, 'running', b.created_at, b.created_at, 0
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[])
           AS b (run_id, owner_id, agent, conversation_id, request, created_at)
         ON CONFLICT (run_id) DO NOTHING
         RETURNING run_id`,
        [
          jobs.map((run) => run.runId),
          jobs.map((run) => run.ownerId),
          jobs.map((run) => run.agent),
          jobs.map((run) => run.conversationId),
          jobs.map((run) => run.request),
          jobs.map((run) => run.createdAt),
        ],
      );
      const made = new Set(rows.map((row) => String(row['run_id'])));
      return jobs.map((job) => made.has(wellFormed(job.runId)));
    },
    { oneJobPer: (run) => wellFormed(run.runId) },
  );
}
