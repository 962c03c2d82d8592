import { describe, expect, it } from 'vitest';
import { memoryMemoryStore, memoryTerms, memoryWords } from '../src/index.js';
import { memoryStoreContract } from './contract/memory-store-contract.js';

memoryStoreContract('memoryMemoryStore', async (options = {}) =>
  memoryMemoryStore(options.embedder === undefined ? {} : { embedder: options.embedder }),
);

describe('memoryTerms', () => {
  it('keeps word-like segments, lower-cased, without stop words or punctuation', () => {
    expect(memoryWords("Grandma doesn't eat SPICY food!")).toEqual(['grandma', 'eat', 'spicy', 'food']);
    expect(memoryWords('婆婆不吃辣。')).toEqual(['婆婆', '不吃', '辣']);
    expect(memoryWords('的了吗？')).toEqual([]);
  });

  it('adds the characters and bigrams of Chinese words at half weight', () => {
    const terms = memoryTerms('花生米');
    expect(terms).toContainEqual({ term: '花生米', weight: 1 });
    expect(terms).toContainEqual({ term: '花生', weight: 0.5 });
    expect(terms).toContainEqual({ term: '花', weight: 0.5 });
    expect(memoryTerms('spicy')).toEqual([{ term: 'spicy', weight: 1 }]);
  });

  it('copies items in and out: a caller changing a returned item changes nothing stored', async () => {
    const store = memoryMemoryStore();
    const item = await store.remember('s', '婆婆不吃辣', { by: 'u' });
    (item as { text: string }).text = 'changed';
    expect((await store.list('s'))[0]?.text).toBe('婆婆不吃辣');
  });
});
