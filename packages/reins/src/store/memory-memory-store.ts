import { uuidV4 } from '../util/deps.js';
import {
  cosine,
  memoryText,
  rankRecalled,
  scoreMemory,
  trigramSimilarities,
  tryEmbed,
} from './memory-recall.js';
import type { Embedder, MemoryItem, MemoryStore, RecalledMemory } from './memory-store.js';
import { memoryTerms, type WeightedTerm } from './memory-terms.js';

export interface MemoryMemoryStoreOptions {
  /** Embeds memories and queries; recall mixes the vectors in (and falls back when it fails). */
  readonly embedder?: Embedder;
  /** Default `Date.now`. */
  readonly now?: () => number;
}

interface Entry {
  readonly item: MemoryItem;
  readonly terms: WeightedTerm[];
  readonly vector: number[] | undefined;
}

/**
 * Memories in this process's memory: the `MemoryStore` of tests, the CLI and single-process
 * apps. Recall scores every memory of the scope (scopes are small) with the shared scoring of
 * `memory-recall.ts`; items are copied in and out, so callers cannot change what is stored.
 */
export function memoryMemoryStore(options: MemoryMemoryStoreOptions = {}): MemoryStore {
  const now = options.now ?? Date.now;
  const scopes = new Map<string, Entry[]>();
  const entriesOf = (scope: string): Entry[] => scopes.get(scope) ?? [];
  const copy = (item: MemoryItem): MemoryItem => structuredClone(item);

  return {
    async remember(scope, text, source) {
      const stored = memoryText(text);
      const existing = entriesOf(scope).find((e) => e.item.text === stored);
      if (existing !== undefined) return copy(existing.item);
      const vector = await tryEmbed(options.embedder, stored);
      const item: MemoryItem = {
        id: uuidV4(),
        scope,
        text: stored,
        createdAt: now(),
        ...(source === undefined ? {} : { source: structuredClone(source) }),
      };
      // Checked again after the await: two concurrent calls with one text keep one item.
      const raced = entriesOf(scope).find((e) => e.item.text === stored);
      if (raced !== undefined) return copy(raced.item);
      scopes.set(scope, [...entriesOf(scope), { item, terms: memoryTerms(stored), vector }]);
      return copy(item);
    },

    async recall(scope, query, recallOptions = {}) {
      const terms = memoryTerms(query);
      const queryVector =
        terms.length === 0 && options.embedder === undefined
          ? undefined
          : await tryEmbed(options.embedder, query);
      const found: RecalledMemory[] = [];
      for (const entry of entriesOf(scope)) {
        const vector =
          queryVector === undefined || entry.vector === undefined
            ? undefined
            : cosine(queryVector, entry.vector);
        const scored = scoreMemory(
          terms,
          entry.terms,
          { trigramSims: trigramSimilarities(terms, entry.terms), vector },
          queryVector !== undefined,
        );
        if (scored !== undefined) found.push({ ...copy(entry.item), ...scored });
      }
      return rankRecalled(found, recallOptions);
    },

    async list(scope) {
      // Reversed first: of two remembered in the same millisecond, the later one comes first.
      return [...entriesOf(scope)]
        .reverse()
        .map((e) => copy(e.item))
        .sort((a, b) => b.createdAt - a.createdAt);
    },

    async forget(scope, id) {
      const entries = entriesOf(scope);
      const kept = entries.filter((e) => e.item.id !== id);
      if (kept.length === entries.length) return false;
      scopes.set(scope, kept);
      return true;
    },
  };
}
