import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  conversationTitle,
  type Conversation,
  type ConversationStore,
  type ConversationTurn,
  type LoadedConversation,
} from '../store/conversation-store.js';

const ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Conversations as one JSON file each in `dir` (created when missing): the CLI's store, so
 * `reins run --conversation ID` remembers across invocations with no database. Writes go to a
 * temporary file renamed into place (a crash leaves the old file or the new one, never half).
 * Same contract as every `ConversationStore`; meant for one user's machine, not for a server.
 */
export function fileConversationStore(dir: string): ConversationStore {
  const file = (id: string): string => {
    if (!ID.test(id)) throw new RangeError(`conversation id ${JSON.stringify(id)}: 1–100 of A-Z a-z 0-9 _ -`);
    return join(dir, `${id}.json`);
  };
  const read = async (id: string): Promise<LoadedConversation | undefined> => {
    try {
      return JSON.parse(await readFile(file(id), 'utf8')) as LoadedConversation;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  const write = async (loaded: LoadedConversation): Promise<void> => {
    await mkdir(dir, { recursive: true });
    const target = file(loaded.conversation.id);
    const temporary = `${target}.${process.pid}.${randomUUID()}.tmp`; // one per write
    try {
      await writeFile(temporary, JSON.stringify(loaded));
      await rename(temporary, target);
    } catch (thrown) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw thrown;
    }
  };
  // A conversation's read-change-write runs one at a time in this process: two turns added at
  // once are both kept. (Two processes adding to one conversation at the same moment may
  // still keep only the last: this store is for one user's command line.)
  const tails = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const next = (tails.get(id) ?? Promise.resolve()).then(work, work);
    const tail = next.catch(() => undefined);
    tails.set(id, tail);
    void tail.then(() => {
      if (tails.get(id) === tail) tails.delete(id);
    });
    return next;
  };
  const live = (c: Conversation, now: number): boolean => c.expiresAt >= now;
  const addTurnNow = async (
    conversationId: string,
    ownerId: string,
    turn: ConversationTurn,
    ttlMs: number,
  ): Promise<boolean> => {
    let loaded = await read(conversationId);
    if (loaded !== undefined && !live(loaded.conversation, turn.at)) loaded = undefined;
    if (loaded !== undefined && loaded.conversation.ownerId !== ownerId) return false;
    const turns = [...(loaded?.turns ?? [])];
    const at = turns.findIndex((t) => t.runId === turn.runId);
    if (at === -1) turns.push(turn);
    else turns[at] = turn;
    const previous = loaded?.conversation;
    await write({
      conversation: {
        id: conversationId,
        ownerId,
        title: previous?.title ?? conversationTitle(turn.query),
        createdAt: previous?.createdAt ?? turn.at,
        updatedAt: Math.max(previous?.updatedAt ?? turn.at, turn.at),
        expiresAt: Math.max(previous?.expiresAt ?? 0, turn.at + ttlMs),
        turnCount: turns.length,
      },
      turns,
    });
    return true;
  };
  return {
    addTurn(conversationId, ownerId, turn: ConversationTurn, ttlMs) {
      return oneAtATime(conversationId, () => addTurnNow(conversationId, ownerId, turn, ttlMs));
    },
    async get(conversationId, ownerId, now) {
      const loaded = await read(conversationId);
      return loaded?.conversation.ownerId === ownerId && live(loaded.conversation, now) ? loaded : undefined;
    },
    async list(ownerId, now, limit) {
      const all = await this.all();
      return all
        .map((l) => l.conversation)
        .filter((c) => c.ownerId === ownerId && live(c, now))
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1))
        .slice(0, Math.max(0, limit));
    },
    async delete(conversationId, ownerId) {
      const loaded = await read(conversationId);
      if (loaded?.conversation.ownerId !== ownerId) return false;
      await rm(file(conversationId), { force: true });
      return true;
    },
    async sweep(now) {
      let removed = 0;
      for (const loaded of await this.all()) {
        if (live(loaded.conversation, now)) continue;
        await rm(file(loaded.conversation.id), { force: true });
        removed++;
      }
      return removed;
    },
    async all(): Promise<LoadedConversation[]> {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return [];
      }
      const found: LoadedConversation[] = [];
      for (const name of names.filter((n) => n.endsWith('.json'))) {
        const loaded = await read(name.slice(0, -5)).catch(() => undefined);
        if (loaded !== undefined) found.push(loaded);
      }
      return found;
    },
  } as ConversationStore & { all(): Promise<LoadedConversation[]> };
}
