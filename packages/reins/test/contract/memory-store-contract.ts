import { describe, expect, it } from 'vitest';
import type { Embedder, MemoryStore } from '../../src/store/memory-store.js';

/** Opens the store under test (fresh or shared: every test uses scopes of its own). */
export type OpenMemoryStore = (options?: { readonly embedder?: Embedder }) => Promise<MemoryStore>;

let scopeCounter = 0;
/** A scope no other test uses, so suites may share one table. */
const freshScope = (label: string): string => `household:${label}-${Date.now()}-${++scopeCounter}`;

const GRANDMA = '婆婆不吃辣';
const PEANUT = '小宝对花生过敏';
const MILK = '爷爷每天早上喝牛奶';
const GRANDMA_EN = "Grandma doesn't eat spicy food";
const PEANUT_EN = 'Xiaobao is allergic to peanuts';

/**
 * A fake embedding provider: one dimension per topic (spicy, allergy, the elders, milk), plus
 * exact vectors for given texts. Deterministic, offline.
 */
function topicEmbedder(exact: Record<string, number[]> = {}): Embedder & { calls: number } {
  const topics = [/辣|spicy/i, /花生|过敏|allerg|peanut/i, /婆婆|爷爷|老人|grandma|elder/i, /牛奶|milk/i];
  const embedder = {
    name: 'topics',
    calls: 0,
    embed: async (texts: readonly string[]) => {
      embedder.calls++;
      return texts.map((t) => exact[t] ?? topics.map((re) => (re.test(t) ? 1 : 0)));
    },
  };
  return embedder;
}

const failingEmbedder: Embedder = {
  name: 'down',
  embed: () => Promise.reject(new Error('provider unreachable')),
};

async function seeded(store: MemoryStore, scope: string, texts: readonly string[]): Promise<void> {
  for (const text of texts) await store.remember(scope, text);
}

const texts = (found: readonly { text: string }[]): string[] => found.map((m) => m.text);

/**
 * The `MemoryStore` contract (see `src/store/memory-store.ts`), one `it` per sentence, in
 * Chinese and English. Each implementation runs it: `memoryStoreContract('sql [pglite]', open)`.
 */
export function memoryStoreContract(name: string, open: OpenMemoryStore): void {
  describe(`MemoryStore contract: ${name}`, () => {
    it('remember stores the trimmed text with its scope, time and source, and returns the item', async () => {
      const store = await open();
      const scope = freshScope('remember');
      const before = Date.now();
      const item = await store.remember(scope, `  ${GRANDMA}\n`, { by: 'user-1', runId: 'run-1' });
      expect(item).toMatchObject({ scope, text: GRANDMA, source: { by: 'user-1', runId: 'run-1' } });
      expect(item.id).toMatch(/\S/);
      expect(item.createdAt).toBeGreaterThanOrEqual(before - 1_000);
      expect(item.createdAt).toBeLessThanOrEqual(Date.now() + 1_000);
      expect(await store.list(scope)).toEqual([item]);
    });

    it('remember refuses a blank text or one over 500 characters with a RangeError, storing nothing', async () => {
      const store = await open();
      const scope = freshScope('refuse');
      await expect(store.remember(scope, '   \n ')).rejects.toThrow(RangeError);
      await expect(store.remember(scope, '辣'.repeat(501))).rejects.toThrow(RangeError);
      expect(await store.list(scope)).toEqual([]);
      const longest = await store.remember(scope, '辣'.repeat(500));
      expect(longest.text).toHaveLength(500);
    });

    it('remembering the same text again in a scope returns the existing item; another scope gets its own', async () => {
      const store = await open();
      const [a, b] = [freshScope('same-a'), freshScope('same-b')];
      const first = await store.remember(a, GRANDMA);
      const again = await store.remember(a, ` ${GRANDMA} `);
      expect(again).toEqual(first);
      expect(await store.list(a)).toHaveLength(1);
      const elsewhere = await store.remember(b, GRANDMA);
      expect(elsewhere.id).not.toBe(first.id);
      expect(elsewhere.scope).toBe(b);
    });

    it('list returns the scope’s memories newest first', async () => {
      const store = await open();
      const scope = freshScope('list');
      await seeded(store, scope, [GRANDMA, PEANUT, MILK]);
      expect(texts(await store.list(scope))).toEqual([MILK, PEANUT, GRANDMA]);
      expect(await store.list(freshScope('empty'))).toEqual([]);
    });

    it('forget deletes one memory and returns whether it existed', async () => {
      const store = await open();
      const scope = freshScope('forget');
      const item = await store.remember(scope, GRANDMA);
      await store.remember(scope, PEANUT);
      expect(await store.forget(scope, item.id)).toBe(true);
      expect(texts(await store.list(scope))).toEqual([PEANUT]);
      expect(await store.forget(scope, item.id)).toBe(false);
      expect(await store.forget(scope, 'no-such-id')).toBe(false);
      expect(await store.recall(scope, '婆婆能吃辣吗')).toEqual([]);
    });

    it('nothing of one scope is returned, counted, changed or deleted through another', async () => {
      const store = await open();
      const [a, b] = [freshScope('iso-a'), freshScope('iso-b')];
      const item = await store.remember(a, GRANDMA);
      await store.remember(b, PEANUT);
      expect(texts(await store.list(b))).toEqual([PEANUT]);
      expect(await store.recall(b, '婆婆能吃辣吗')).toEqual([]);
      expect(await store.recall(b, GRANDMA)).toEqual([]);
      expect(await store.forget(b, item.id)).toBe(false); // another scope's id
      expect(await store.list(a)).toEqual([item]);
      // The same text in b is b's own item; a's stays a's.
      const mine = await store.remember(b, GRANDMA);
      expect(mine.id).not.toBe(item.id);
      expect(await store.forget(b, mine.id)).toBe(true);
      expect(await store.list(a)).toEqual([item]);
    });

    it('recall finds a Chinese memory by a question in other words (婆婆能吃辣吗, 晚饭做个辣的菜, 花生)', async () => {
      const store = await open();
      const scope = freshScope('zh');
      await seeded(store, scope, [GRANDMA, PEANUT, MILK]);
      expect(texts(await store.recall(scope, '婆婆能吃辣吗'))[0]).toBe(GRANDMA);
      expect(texts(await store.recall(scope, '晚饭做个辣的菜'))).toEqual([GRANDMA]);
      const peanut = await store.recall(scope, '花生');
      expect(texts(peanut)).toEqual([PEANUT]);
      expect(peanut[0]?.via).toContain('text');
      expect(peanut[0]?.scope).toBe(scope);
    });

    it('recall reaches inside Chinese words the segmenter cut differently (花生米 → 花生)', async () => {
      const store = await open();
      const scope = freshScope('zh-pieces');
      await seeded(store, scope, [GRANDMA, PEANUT, MILK]);
      expect(texts(await store.recall(scope, '小宝不能吃花生米'))[0]).toBe(PEANUT);
    });

    it('recall finds an English memory by one word, and by a near word through trigrams', async () => {
      const store = await open();
      const scope = freshScope('en');
      await seeded(store, scope, [GRANDMA_EN, PEANUT_EN, GRANDMA]);
      const spicy = await store.recall(scope, 'spicy');
      expect(texts(spicy)).toEqual([GRANDMA_EN]);
      expect(spicy[0]?.via).toContain('text');
      const peanut = await store.recall(scope, 'peanut');
      expect(texts(peanut)).toEqual([PEANUT_EN]);
      expect(peanut[0]?.via).toEqual(['trigram']); // "peanut" is not the word "peanuts"
    });

    it('a query sharing no word, trigram or meaning with any memory returns []', async () => {
      const store = await open();
      const scope = freshScope('unrelated');
      await seeded(store, scope, [GRANDMA, PEANUT, MILK, GRANDMA_EN, PEANUT_EN]);
      expect(await store.recall(scope, '今天天气怎么样')).toEqual([]);
      expect(await store.recall(scope, "What's the weather like tomorrow?")).toEqual([]);
      expect(await store.recall(scope, '？！')).toEqual([]);
      expect(await store.recall(freshScope('nothing'), GRANDMA)).toEqual([]);
    });

    it('recall ranks best first, with scores, at most `limit` (default 5), none below `minScore`', async () => {
      const store = await open();
      const scope = freshScope('rank');
      const many = Array.from({ length: 7 }, (_, i) => `婆婆第${i + 1}次说不吃辣`);
      await seeded(store, scope, [...many, GRANDMA, MILK]);
      const found = await store.recall(scope, GRANDMA);
      expect(found).toHaveLength(5);
      expect(found[0]?.text).toBe(GRANDMA); // the exact memory first
      const scores = found.map((m) => m.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      expect(await store.recall(scope, GRANDMA, { limit: 2 })).toHaveLength(2);
      const top = found[0]?.score ?? 0;
      expect(texts(await store.recall(scope, GRANDMA, { minScore: top }))).toEqual([GRANDMA]);
    });

    it('an embedder that fails makes recall (and remember) fall back to text and trigrams, never an error', async () => {
      const store = await open({ embedder: failingEmbedder });
      const scope = freshScope('embed-down');
      await seeded(store, scope, [GRANDMA, PEANUT]);
      const found = await store.recall(scope, '婆婆能吃辣吗');
      expect(texts(found)[0]).toBe(GRANDMA);
      expect(found[0]?.via).not.toContain('vector');
      expect(await store.recall(scope, '今天天气怎么样')).toEqual([]);
    });

    it('an embedder that works finds a memory by meaning alone and changes the ranking', async () => {
      const plain = await open();
      const embedder = topicEmbedder({ 婆婆吃花生吗: [0, 1, 0, 0] }); // this question is "about allergies"
      const embedded = await open({ embedder });
      const scope = freshScope('embed');
      await seeded(embedded, scope, [GRANDMA, PEANUT, MILK]);
      expect(embedder.calls).toBeGreaterThanOrEqual(3); // vectors are stored beside the text
      await seeded(plain, scope, [GRANDMA, PEANUT, MILK]); // a shared table keeps the vectors

      // No shared word or trigram: only the meaning (the elders) links them.
      expect(await plain.recall(scope, '给老人做饭要注意什么')).toEqual([]);
      const byMeaning = await embedded.recall(scope, '给老人做饭要注意什么');
      expect(texts(byMeaning).sort()).toEqual([GRANDMA, MILK].sort());
      expect(byMeaning.every((m) => m.via.join() === 'vector')).toBe(true);

      const lexical = texts(await plain.recall(scope, '婆婆吃花生吗'));
      expect(lexical[0]).toBe(GRANDMA);
      const mixed = await embedded.recall(scope, '婆婆吃花生吗');
      expect(mixed[0]?.text).toBe(PEANUT);
      expect(mixed[0]?.via).toContain('vector');
    });
  });
}
