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
import { turnBatcher } from './turn-batcher.js';

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
 * `memoryConversationStore`. A turn is written in one statement, with the turns of other
 * conversations added meanwhile (`turnBatcher`): the conversation is created, moved on or —
 * when it had expired — started afresh (its `generation` moves on, which is what forgets its
 * old turns), and the turn is written only if the conversation is the owner's.
 */
export async function sqlConversationStore(
  db: PgQueryable,
  options: SqlStoreOptions = {},
): Promise<ConversationStore> {
  const names = sqlNames(options, 'sqlConversationStore');
  await createRacing(() => ensureConversationTables(db, names));
  const conversations = names.table('conversations');
  const turns = names.table('conversation_turns');
  const writer = turnBatcher(db, conversations, turns);
  const counted = `c.conversation_id, c.owner_id, c.title, c.created_at, c.updated_at, c.expires_at,
    (SELECT count(*) FROM ${turns} t WHERE t.conversation_id = c.conversation_id AND t.generation = c.generation) AS turn_count`;

  return {
    async addTurn(conversationId, ownerId, added, ttlMs) {
      return writer.submit({
        conversationId,
        ownerId,
        title: conversationTitle(added.query),
        at: added.at,
        ttlMs,
        runId: added.runId,
        query: added.query,
        answer: added.answer ?? null,
        status: added.status,
        about: added.about === undefined ? null : JSON.stringify(added.about),
        answerData: added.answerData === undefined ? null : JSON.stringify(added.answerData),
      });
    },
    async get(conversationId, ownerId, now) {
      // One statement: the owner-checked header and its turns are one snapshot (read in two, the
      // id could be deleted and taken by another owner in between, whose turns then showed here).
      const { rows } = await db.query(
        `SELECT c.conversation_id, c.owner_id, c.title, c.created_at, c.updated_at, c.expires_at,
                t.run_id, t.query, t.answer, t.status, t.about, t.answer_data, t.at
         FROM ${conversations} c
         LEFT JOIN ${turns} t ON t.conversation_id = c.conversation_id AND t.generation = c.generation
         WHERE c.conversation_id = $1 AND c.owner_id = $2 AND c.expires_at >= $3
         ORDER BY t.turn_order`,
        [conversationId, ownerId, now],
      );
      const head = rows[0];
      if (head === undefined) return undefined;
      const found = rows.filter((row) => row['run_id'] !== null && row['run_id'] !== undefined).map(turn);
      return { conversation: conversation({ ...head, turn_count: found.length }), turns: found };
    },
    async list(ownerId, now, limit) {
      const { rows } = await db.query(
        `SELECT ${counted} FROM ${conversations} c
         WHERE c.owner_id = $1 AND c.expires_at >= $2
         ORDER BY c.updated_at DESC, c.conversation_id DESC LIMIT $3`,
        // As the memory store's slice: Infinity lists all (LIMIT NULL), NaN or less than 0 none.
        [ownerId, now, limit === Infinity ? null : Number.isNaN(limit) ? 0 : Math.max(0, Math.floor(limit))],
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
