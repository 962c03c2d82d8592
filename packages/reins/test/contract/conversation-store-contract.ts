import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversationTitle, type ConversationStore, type ConversationTurn } from '../../src/index.js';

export interface OpenedConversationStore {
  readonly store: ConversationStore;
  close(): Promise<void>;
}

const T0 = 1_796_137_877_768;
const TTL = 60_000;

const turn = (runId: string, at: number, overrides: Partial<ConversationTurn> = {}): ConversationTurn => ({
  runId,
  query: '今晚吃什么？',
  status: 'running',
  at,
  ...overrides,
});

/**
 * The `ConversationStore` contract (see `conversation-store.ts`), as vitest blocks. Each test
 * opens a store and closes it; `open` must give an empty store.
 */
export function conversationStoreContract(name: string, open: () => Promise<OpenedConversationStore>): void {
  describe(`ConversationStore contract: ${name}`, () => {
    let opened: OpenedConversationStore;
    let store: ConversationStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.store;
    });
    afterEach(async () => {
      await opened.close();
    });

    it('creates a conversation on its first turn: title from the query, times from the turn', async () => {
      const query = `  帮我看看\n冰箱里  还有什么，${'能做什么菜'.repeat(20)}`;
      expect(await store.addTurn('c1', 'alice', turn('r1', T0, { query }), TTL)).toBe(true);
      const loaded = await store.get('c1', 'alice', T0);
      expect(loaded?.conversation).toEqual({
        id: 'c1',
        ownerId: 'alice',
        title: conversationTitle(query),
        createdAt: T0,
        updatedAt: T0,
        expiresAt: T0 + TTL,
        turnCount: 1,
      });
      expect(loaded?.conversation.title.length).toBeLessThanOrEqual(60);
      expect(loaded?.turns).toEqual([turn('r1', T0, { query })]);
    });

    it('keeps turns oldest first, answers and task state deep-equal, and moves updatedAt and expiresAt on', async () => {
      const about = { recipe: { id: 'r-9', name: '番茄炒蛋 🍅' }, plan: { days: [1, 2.5, { x: null }] } };
      await store.addTurn(
        'c1',
        'alice',
        turn('r1', T0, { status: 'success', answer: '可以做番茄炒蛋', about }),
        TTL,
      );
      await store.addTurn('c1', 'alice', turn('r2', T0 + 1_000.5, { query: '需要什么？' }), TTL);
      const loaded = await store.get('c1', 'alice', T0 + 1_001);
      expect(loaded?.turns.map((t) => t.runId)).toEqual(['r1', 'r2']);
      expect(loaded?.turns[0]).toEqual(
        turn('r1', T0, { status: 'success', answer: '可以做番茄炒蛋', about }),
      );
      expect(loaded?.conversation).toMatchObject({
        title: '今晚吃什么？',
        createdAt: T0,
        updatedAt: T0 + 1_000.5,
        expiresAt: T0 + 1_000.5 + TTL,
        turnCount: 2,
      });
    });

    it('keeps a turn’s answer data deep-equal (the cards shown live), and none for a turn without', async () => {
      const answerData = {
        reply: '可以做番茄炒蛋',
        cards: [{ type: 'recipe', name: '番茄炒蛋 🍅', missing: [], servings: 2.5, note: null }],
      };
      await store.addTurn('c1', 'alice', turn('r1', T0), TTL);
      await store.addTurn(
        'c1',
        'alice',
        turn('r1', T0, { status: 'success', answer: '好', answerData }),
        TTL,
      );
      await store.addTurn('c1', 'alice', turn('r2', T0 + 1, { status: 'success', answer: '好' }), TTL);
      const loaded = await store.get('c1', 'alice', T0 + 1);
      expect(loaded?.turns).toEqual([
        turn('r1', T0, { status: 'success', answer: '好', answerData }),
        turn('r2', T0 + 1, { status: 'success', answer: '好' }),
      ]);
      expect(loaded?.turns[1]).not.toHaveProperty('answerData');
    });

    it('replaces the turn of a run written again (at its start, then at its stop)', async () => {
      await store.addTurn('c1', 'alice', turn('r1', T0), TTL);
      await store.addTurn('c1', 'alice', turn('r2', T0 + 10), TTL);
      await store.addTurn(
        'c1',
        'alice',
        turn('r1', T0, { status: 'success', answer: '好的', about: { food: '鸡蛋' } }),
        TTL,
      );
      const loaded = await store.get('c1', 'alice', T0 + 10);
      expect(loaded?.turns).toEqual([
        turn('r1', T0, { status: 'success', answer: '好的', about: { food: '鸡蛋' } }),
        turn('r2', T0 + 10),
      ]);
      expect(loaded?.conversation.turnCount).toBe(2);
    });

    it('reports someone else’s conversation exactly like a missing one, and never changes it', async () => {
      await store.addTurn('c1', 'alice', turn('r1', T0), TTL);
      expect(await store.addTurn('c1', 'mallory', turn('r2', T0 + 1), TTL)).toBe(false);
      expect(await store.get('c1', 'mallory', T0)).toBeUndefined();
      expect(await store.get('nope', 'mallory', T0)).toBeUndefined();
      expect(await store.list('mallory', T0, 10)).toEqual([]);
      expect(await store.delete('c1', 'mallory')).toBe(false);
      expect(await store.delete('nope', 'mallory')).toBe(false);
      const loaded = await store.get('c1', 'alice', T0 + 1);
      expect(loaded?.turns.map((t) => t.runId)).toEqual(['r1']);
      expect(loaded?.conversation.updatedAt).toBe(T0);
    });

    it('lists the owner’s conversations newest first (by updatedAt), at most limit', async () => {
      await store.addTurn('old', 'alice', turn('r1', T0), TTL);
      await store.addTurn('mid', 'alice', turn('r2', T0 + 5), TTL);
      await store.addTurn('new', 'alice', turn('r3', T0 + 9), TTL);
      await store.addTurn('bobs', 'bob', turn('r4', T0 + 20), TTL);
      await store.addTurn('old', 'alice', turn('r5', T0 + 12), TTL); // now the newest
      expect((await store.list('alice', T0 + 12, 10)).map((c) => c.id)).toEqual(['old', 'new', 'mid']);
      expect((await store.list('alice', T0 + 12, 2)).map((c) => c.id)).toEqual(['old', 'new']);
      expect((await store.list('alice', T0 + 12, 2))[0]).toMatchObject({
        ownerId: 'alice',
        turnCount: 2,
        updatedAt: T0 + 12,
      });
    });

    it('does not return an expired conversation even before a sweep; a sweep forgets it', async () => {
      await store.addTurn('short', 'alice', turn('r1', T0), 1_000);
      await store.addTurn('long', 'alice', turn('r2', T0), 100_000);
      expect((await store.get('short', 'alice', T0 + 1_000))?.conversation.id).toBe('short'); // at expiresAt: still there
      expect(await store.get('short', 'alice', T0 + 1_001)).toBeUndefined();
      expect((await store.list('alice', T0 + 1_001, 10)).map((c) => c.id)).toEqual(['long']);
      expect(await store.sweep(T0 + 1_001)).toBe(1);
      expect(await store.sweep(T0 + 1_001)).toBe(0);
      expect((await store.get('long', 'alice', T0 + 1_001))?.turns).toHaveLength(1);
      // A turn after the expiry starts the conversation afresh.
      await store.addTurn('short', 'alice', turn('r3', T0 + 2_000, { query: '新的问题' }), 1_000);
      expect((await store.get('short', 'alice', T0 + 2_000))?.conversation).toMatchObject({
        title: '新的问题',
        turnCount: 1,
      });
    });

    it('deletes a conversation and its turns, once', async () => {
      await store.addTurn('c1', 'alice', turn('r1', T0), TTL);
      await store.addTurn('c2', 'alice', turn('r2', T0), TTL);
      expect(await store.delete('c1', 'alice')).toBe(true);
      expect(await store.get('c1', 'alice', T0)).toBeUndefined();
      expect(await store.delete('c1', 'alice')).toBe(false);
      expect((await store.list('alice', T0, 10)).map((c) => c.id)).toEqual(['c2']);
      // Its id starts a new conversation with no old turns.
      await store.addTurn('c1', 'alice', turn('r3', T0 + 1), TTL);
      expect((await store.get('c1', 'alice', T0 + 1))?.turns.map((t) => t.runId)).toEqual(['r3']);
    });
  });
}
