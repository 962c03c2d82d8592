import {
  conversationTitle,
  type Conversation,
  type ConversationStore,
  type ConversationTurn,
  type JsonValue,
  type StoredRunStatus,
} from 'reins';
import type { PgQueryable } from './pg-blob-store.js';
import { sqlNames, type SqlStoreOptions } from './sql-names.js';
import { createRacing, ensureConversationTables } from './sql-schema.js';

type Row = Record<string, unknown>;

function conversation(row: Row): Conversation {
  return {
    id: String(row['conversation_id']),
    ownerId: String(row['owner_id']),
    title: String(row['title']),
    createdAt: Number(row['created_at']),
    updatedAt: Number(row['updated_at']),
    expiresAt: Number(row['expires_at']),
    turnCount: Number(row['turn_count']),
  };
}

function turn(row: Row): ConversationTurn {
  const { answer, about } = row;
  const answerData = row['answer_data'];
  return {
    runId: String(row['run_id']),
    query: String(row['query']),
    ...(typeof answer === 'string' ? { answer } : {}),
    status: String(row['status']) as StoredRunStatus,
    ...(about === null || about === undefined
      ? {}
      : { about: about as { readonly [key: string]: JsonValue } }),
    ...(answerData === null || answerData === undefined ? {} : { answerData: answerData as JsonValue }),
    at: Number(row['at']),
  };
}

/**
 * Conversations in PostgreSQL (a `pg` Pool, or PGlite embedded), held to the same contract as
 * `memoryConversationStore`. A turn is one statement: the conversation is created, moved on or
 * — when it had expired — started afresh (its `generation` moves on, which is what forgets
 * its old turns), and the turn is written only if the conversation is the owner's.
 */
export async function sqlConversationStore(
  db: PgQueryable,
  options: SqlStoreOptions = {},
): Promise<ConversationStore> {
  const names = sqlNames(options, 'sqlConversationStore');
  await createRacing(() => ensureConversationTables(db, names));
  const conversations = names.table('conversations');
  const turns = names.table('conversation_turns');
  const counted = `c.conversation_id, c.owner_id, c.title, c.created_at, c.updated_at, c.expires_at,
    (SELECT count(*) FROM ${turns} t WHERE t.conversation_id = c.conversation_id AND t.generation = c.generation) AS turn_count`;

  return {
    async addTurn(conversationId, ownerId, added, ttlMs) {
      const { rows } = await db.query(
        `WITH conversation AS (
           INSERT INTO ${conversations} AS c (conversation_id, owner_id, title, created_at, updated_at, expires_at)
           VALUES ($1, $2, $3, $4::float8, $4::float8, $4::float8 + $5::float8)
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
         SELECT conversation_id, generation, $6, $7, $8, $9, $10::jsonb, $12::jsonb, $11 FROM conversation
         ON CONFLICT (conversation_id, generation, run_id) DO UPDATE SET
           query = EXCLUDED.query, answer = EXCLUDED.answer, status = EXCLUDED.status,
           about = EXCLUDED.about, answer_data = EXCLUDED.answer_data, at = EXCLUDED.at
         RETURNING run_id`,
        [
          conversationId,
          ownerId,
          conversationTitle(added.query),
          added.at,
          ttlMs,
          added.runId,
          added.query,
          added.answer ?? null,
          added.status,
          added.about === undefined ? null : JSON.stringify(added.about),
          added.at,
          added.answerData === undefined ? null : JSON.stringify(added.answerData),
        ],
      );
      return rows.length > 0;
    },
    async get(conversationId, ownerId, now) {
      const { rows } = await db.query(
        `SELECT ${counted}, c.generation FROM ${conversations} c
         WHERE c.conversation_id = $1 AND c.owner_id = $2 AND c.expires_at >= $3`,
        [conversationId, ownerId, now],
      );
      const head = rows[0];
      if (head === undefined) return undefined;
      const stored = await db.query(
        `SELECT run_id, query, answer, status, about, answer_data, at FROM ${turns}
         WHERE conversation_id = $1 AND generation = $2 ORDER BY turn_order`,
        [conversationId, head['generation']],
      );
      return { conversation: conversation(head), turns: stored.rows.map(turn) };
    },
    async list(ownerId, now, limit) {
      const { rows } = await db.query(
        `SELECT ${counted} FROM ${conversations} c
         WHERE c.owner_id = $1 AND c.expires_at >= $2
         ORDER BY c.updated_at DESC, c.conversation_id DESC LIMIT $3`,
        [ownerId, now, Math.max(0, Math.floor(limit))],
      );
      return rows.map(conversation);
    },
    async delete(conversationId, ownerId) {
      const { rows } = await db.query(
        `DELETE FROM ${conversations} WHERE conversation_id = $1 AND owner_id = $2 RETURNING conversation_id`,
        [conversationId, ownerId],
      );
      return rows.length > 0;
    },
    async sweep(now) {
      const { rows } = await db.query(
        `DELETE FROM ${conversations} WHERE expires_at < $1 RETURNING conversation_id`,
        [now],
      );
      return rows.length;
    },
  };
}
