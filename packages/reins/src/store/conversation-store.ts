import type { JsonValue, StoredRunStatus } from './run-store.js';

/** One turn of a conversation: what the user asked, what the run answered, what it was about. */
export interface ConversationTurn {
  readonly runId: string;
  /** The user's text. */
  readonly query: string;
  /** The run's final message text (absent while it runs or when it ended without one). */
  readonly answer?: string | undefined;
  /** How the run ended (or that it is still going / paused). */
  readonly status: StoredRunStatus;
  /**
   * The task state of the turn (seed 001 §2.3): which recipe, plan, food or policy it was
   * about, as the app describes it (e.g. `{"recipe": {"id": …, "name": "番茄炒蛋"}}`). Code
   * writes it from the run's checked observations, never from the model's say-so.
   */
  readonly about?: { readonly [key: string]: JsonValue } | undefined;
  /**
   * The structured answer's data (`answer_data` of the run's record: e.g. the kitchen's
   * `{reply, cards}`), so a client that shows the conversation again shows what it showed live.
   * The server keeps it only up to a size (`ConversationsOptions.maxAnswerDataBytes`); never
   * shown to the model.
   */
  readonly answerData?: JsonValue | undefined;
  /** Epoch ms the turn started. */
  readonly at: number;
}

export interface Conversation {
  readonly id: string;
  readonly ownerId: string;
  /** The first question, shortened: what a list shows. */
  readonly title: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Epoch ms after which the conversation is forgotten (its TTL from the last turn). */
  readonly expiresAt: number;
  readonly turnCount: number;
}

export interface LoadedConversation {
  readonly conversation: Conversation;
  /** Oldest first. */
  readonly turns: readonly ConversationTurn[];
}

/**
 * The turns of each conversation (seed 001's session state), by owner.
 *
 * Decided where the contract below was open (and held by the suite):
 * - A conversation is expired once `now` is past `expiresAt` (at `expiresAt` it is still there).
 * - A turn replacing a run's earlier turn keeps that turn's place; `updatedAt` and `expiresAt`
 *   never move back. The title stays the first turn's.
 * - A turn for an expired conversation (its `at` past `expiresAt`) starts it afresh, old turns
 *   forgotten, whoever owned it. `delete` removes an expired one not yet swept too.
 * - `list` orders equal `updatedAt` by id, descending.
 *
 * Contract (suite: `test/contract/conversation-store-contract.ts`):
 * - A turn is returned as it was written (`answer`, `about`, `answerData` deep-equal).
 * - Every read and write takes the owner: someone else's conversation is reported exactly like
 *   one that does not exist (`undefined` / `false`), never changed.
 * - `addTurn` creates the conversation on its first turn (title from the query) and moves its
 *   `updatedAt` and `expiresAt` (`at + ttlMs`) on; a turn for a conversation of another owner
 *   returns `false` and stores nothing. Adding a turn with a `runId` already in the
 *   conversation replaces that turn (a run's turn is written when it starts and again when it stops).
 * - `get` returns the turns oldest first; `list` the owner's conversations newest first (by
 *   `updatedAt`), at most `limit`.
 * - `delete` forgets a conversation and its turns; `sweep(now)` forgets every conversation whose
 *   `expiresAt` has passed; both return what they removed. An expired conversation is not
 *   returned by `get` or `list` even before a sweep.
 */
export interface ConversationStore {
  addTurn(conversationId: string, ownerId: string, turn: ConversationTurn, ttlMs: number): Promise<boolean>;
  get(conversationId: string, ownerId: string, now: number): Promise<LoadedConversation | undefined>;
  list(ownerId: string, now: number, limit: number): Promise<Conversation[]>;
  delete(conversationId: string, ownerId: string): Promise<boolean>;
  sweep(now: number): Promise<number>;
}

/** The title of a conversation: its first question, on one line, at most 60 characters. */
export function conversationTitle(query: string): string {
  const line = query.replace(/\s+/g, ' ').trim();
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}
