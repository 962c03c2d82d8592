import type { StoredRunStatus } from 'reins';
import { GroupCommit } from './group-commit.js';
import type { PgQueryable } from './pg-blob-store.js';
import { wellFormed } from './well-formed.js';

/**
 * One turn as it goes to the database, with what creating or moving on its conversation needs;
 * its JSON values as text, encoded by the caller (a value that cannot be JSON fails only it).
 */
export interface TurnJob {
  readonly conversationId: string;
  readonly ownerId: string;
  readonly title: string;
  readonly at: number;
  readonly ttlMs: number;
  readonly runId: string;
  readonly query: string;
  readonly answer: string | null;
  readonly status: StoredRunStatus;
  readonly about: string | null;
  readonly answerData: string | null;
}

/**
 * Turns of many conversations as one statement (`GroupCommit`): a run writes its turn when it
 * starts and when it ends, two of the ~8 statements a run made at 200 in flight. Per turn, as
 * when it was a statement alone: the conversation is created, moved on or — when it had expired
 * — started afresh (its `generation` moves on, which forgets its old turns), and the turn is
 * written only if the conversation is the owner's. One turn per conversation per statement (an
 * upsert touches a row once), so a conversation's turns are written in the order they came.
 * Each job's result: whether its turn was written.
 */
export function turnBatcher(
  db: PgQueryable,
  conversations: string,
  turns: string,
): GroupCommit<TurnJob, boolean> {
  return new GroupCommit(
    async (jobs) => {
      const { rows } = await db.query(
        `WITH batch AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::float8[], $6::text[],
                                $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) WITH ORDINALITY
             AS b (conversation_id, owner_id, title, at, ttl, run_id, query, answer, status, about, answer_data, n)
         ),
         conversation AS (
           INSERT INTO ${conversations} AS c (conversation_id, owner_id, title, created_at, updated_at, expires_at)
           SELECT conversation_id, owner_id, title, at, at, at + ttl FROM batch ORDER BY n
           ON CONFLICT (conversation_id) DO UPDATE SET
             owner_id = EXCLUDED.owner_id,
             title = CASE WHEN c.expires_at < EXCLUDED.created_at THEN EXCLUDED.title ELSE c.title END,
             generation = CASE WHEN c.expires_at < EXCLUDED.created_at THEN c.generation + 1 ELSE c.generation END,
             created_at = CASE WHEN c.expires_at < EXCLUDED.created_at THEN EXCLUDED.created_at ELSE c.created_at END,
             updated_at = CASE WHEN c.expires_at < EXCLUDED.created_at THEN EXCLUDED.updated_at
                               ELSE GREATEST(c.updated_at, EXCLUDED.updated_at) END,
             expires_at = CASE WHEN c.expires_at < EXCLUDED.created_at THEN EXCLUDED.expires_at
                               ELSE GREATEST(c.expires_at, EXCLUDED.expires_at) END
           WHERE c.owner_id = EXCLUDED.owner_id OR c.expires_at < EXCLUDED.created_at
           RETURNING conversation_id, generation
         ),
         forgotten AS (
           DELETE FROM ${turns} t USING conversation
           WHERE t.conversation_id = conversation.conversation_id AND t.generation < conversation.generation
         )
         INSERT INTO ${turns} (conversation_id, generation, run_id, query, answer, status, about, answer_data, at)
         SELECT b.conversation_id, c.generation, b.run_id, b.query, b.answer, b.status, b.about::jsonb,
                b.answer_data::jsonb, b.at
         FROM batch b JOIN conversation c USING (conversation_id)
         ORDER BY b.n
         ON CONFLICT (conversation_id, generation, run_id) DO UPDATE SET
           query = EXCLUDED.query, answer = EXCLUDED.answer, status = EXCLUDED.status,
           about = EXCLUDED.about, answer_data = EXCLUDED.answer_data, at = EXCLUDED.at
         RETURNING conversation_id`,
        [
          jobs.map((j) => j.conversationId),
          jobs.map((j) => j.ownerId),
          jobs.map((j) => j.title),
          jobs.map((j) => j.at),
          jobs.map((j) => j.ttlMs),
          jobs.map((j) => j.runId),
          jobs.map((j) => j.query),
          jobs.map((j) => j.answer),
          jobs.map((j) => j.status),
          jobs.map((j) => j.about),
          jobs.map((j) => j.answerData),
        ],
      );
      const written = new Set(rows.map((row) => String(row['conversation_id'])));
      return jobs.map((j) => written.has(wellFormed(j.conversationId)));
    },
    { oneJobPer: (job) => wellFormed(job.conversationId) },
  );
}
