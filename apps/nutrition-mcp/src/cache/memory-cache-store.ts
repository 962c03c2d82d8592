import type { CacheStore } from './cache-store.js';

export interface MemoryCacheStoreOptions {
  /** Entries kept; the least recently used goes first. Default 1 000. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

/** The in-process default: a bounded map in recency order (a Map keeps insertion order). */
export function memoryCacheStore(options: MemoryCacheStoreOptions = {}): CacheStore {
  const maxEntries = options.maxEntries ?? 1_000;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new Error('maxEntries must be a positive integer');
  const entries = new Map<string, { value: string; expires: number }>();
  return {
    backend: 'memory',
    get: async (key) => {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      if (entry.expires <= now()) return undefined;
      entries.set(key, entry); // most recently used moves to the end
      return entry.value;
    },
    set: async (key, value, ttlMs) => {
      entries.delete(key);
      entries.set(key, { value, expires: now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
    },
    state: () => 'ready',
    close: async () => entries.clear(),
  };
}
