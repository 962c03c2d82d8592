/** One thing remembered for a scope (a principal; in the kitchen, a household). */
export interface MemoryItem {
  readonly id: string;
  /** Whose memory it is: recall and forget never cross scopes. */
  readonly scope: string;
  readonly text: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Who asked to remember it and in which run (evidence; never shown to other scopes). */
  readonly source?: { readonly by?: string | undefined; readonly runId?: string | undefined } | undefined;
}

/** A memory recalled for a query, with how well and by what it matched. */
export interface RecalledMemory extends MemoryItem {
  /** Higher is better; comparable within one recall. */
  readonly score: number;
  /** Which signals matched: full-text over segmented words, trigram similarity, embeddings. */
  readonly via: readonly ('text' | 'trigram' | 'vector')[];
}

/** Turns texts into vectors (a provider's embedding endpoint); optional. */
export interface Embedder {
  readonly name: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

export interface RecallOptions {
  /** At most this many (default 5). */
  readonly limit?: number;
  /** Drop matches scoring below this (default: the implementation's own floor). */
  readonly minScore?: number;
}

/**
 * Long-term memory (seed 001 §2.3, the memory layer): written only on the user's word,
 * recalled by meaning offline (segmented full-text plus trigram similarity, for Chinese and
 * English alike) and by embeddings when an `Embedder` is configured.
 *
 * Contract (suite: `test/contract/memory-store-contract.ts`):
 * - Every call takes the scope; nothing of one scope is ever returned, counted, changed or
 *   deleted through another (`forget` of another scope's id returns `false`).
 * - `remember` stores the text (trimmed, non-blank, at most 500 characters: else a
 *   `RangeError`) and returns the item; remembering the same text again in a scope returns
 *   the existing item.
 * - `recall` ranks by relevance (best first), at most `limit`; a query sharing no word,
 *   trigram or meaning with any memory returns `[]`.
 * - `list` returns the scope's memories newest first; `forget` deletes one, returning whether it existed.
 * - An embedder that fails makes recall fall back to text and trigrams (never an error).
 */
export interface MemoryStore {
  remember(scope: string, text: string, source?: MemoryItem['source']): Promise<MemoryItem>;
  recall(scope: string, query: string, options?: RecallOptions): Promise<RecalledMemory[]>;
  list(scope: string): Promise<MemoryItem[]>;
  forget(scope: string, id: string): Promise<boolean>;
}
