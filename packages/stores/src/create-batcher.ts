import type { NewStoredRun } from 'reins';
import { GroupCommit } from './group-commit.js';
import type { PgQueryable } from './pg-blob-store.js';

/**
 * New runs' rows, many runs' as one statement (`GroupCommit`): at 200 runs in flight a statement
 * per run start was one of the ~8 each run made. Each job's result says whether its row was
 * made: false for an id that exists already (a second job for an id waits for the next
 * statement, where the first has taken it).
 */
export function createBatcher(db: PgQueryable, runs: string): GroupCommit<NewStoredRun, boolean> {
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
          jobs.map((run) => run.conversationId ?? null),
          jobs.map((run) => JSON.stringify(run.request)),
          jobs.map((run) => run.createdAt),
        ],
      );
      const made = new Set(rows.map((row) => String(row['run_id'])));
      return jobs.map((job) => made.has(job.runId));
    },
    (run) => run.runId,
  );
}
