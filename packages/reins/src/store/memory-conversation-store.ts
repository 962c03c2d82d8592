import {
  conversationTitle,
  type Conversation,
  type ConversationStore,
  type ConversationTurn,
  type LoadedConversation,
} from './conversation-store.js';

/** A conversation is forgotten once `now` is past its `expiresAt` (at `expiresAt` it is still there). */
const expired = (conversation: Conversation, now: number): boolean => conversation.expiresAt < now;

/**
 * Conversations in this process's memory: the `ConversationStore` of tests and of servers
 * whose conversations need not outlive the process. Values are kept and returned as
 * structured clones, so no caller can change a stored turn by mutating its objects.
 */
export function memoryConversationStore(): ConversationStore {
  const conversations = new Map<string, { conversation: Conversation; turns: ConversationTurn[] }>();
  return {
    async addTurn(conversationId, ownerId, turn, ttlMs) {
      let entry = conversations.get(conversationId);
      // An expired conversation is forgotten: a turn after its expiry starts it afresh.
      if (entry !== undefined && expired(entry.conversation, turn.at)) entry = undefined;
      if (entry !== undefined && entry.conversation.ownerId !== ownerId) return false;
      const stored = structuredClone(turn);
      if (entry === undefined) {
        entry = {
          conversation: {
            id: conversationId,
            ownerId,
            title: conversationTitle(turn.query),
            createdAt: turn.at,
            updatedAt: turn.at,
            expiresAt: turn.at + ttlMs,
            turnCount: 0,
          },
          turns: [],
        };
        conversations.set(conversationId, entry);
      }
      const at = entry.turns.findIndex((t) => t.runId === turn.runId);
      if (at === -1) entry.turns.push(stored);
      else entry.turns[at] = stored;
      const { conversation } = entry;
      entry.conversation = {
        ...conversation,
        updatedAt: Math.max(conversation.updatedAt, turn.at),
        expiresAt: Math.max(conversation.expiresAt, turn.at + ttlMs),
        turnCount: entry.turns.length,
      };
      return true;
    },
    async get(conversationId, ownerId, now): Promise<LoadedConversation | undefined> {
      const entry = conversations.get(conversationId);
      if (entry === undefined || entry.conversation.ownerId !== ownerId || expired(entry.conversation, now))
        return undefined;
      return structuredClone({ conversation: entry.conversation, turns: entry.turns });
    },
    async list(ownerId, now, limit) {
      return [...conversations.values()]
        .map((e) => e.conversation)
        .filter((c) => c.ownerId === ownerId && !expired(c, now))
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1))
        .slice(0, Math.max(0, limit))
        .map((c) => structuredClone(c));
    },
    async delete(conversationId, ownerId) {
      const entry = conversations.get(conversationId);
      if (entry === undefined || entry.conversation.ownerId !== ownerId) return false;
      return conversations.delete(conversationId);
    },
    async sweep(now) {
      let removed = 0;
      for (const [id, { conversation }] of conversations) {
        if (!expired(conversation, now)) continue;
        conversations.delete(id);
        removed++;
      }
      return removed;
    },
  };
}
