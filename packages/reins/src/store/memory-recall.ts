import type { RecalledMemory } from './memory-store.js';
import type { WeightedTerm } from './memory-terms.js';

/**
 * How a memory is scored against a query, shared by every `MemoryStore` so they rank alike:
 *
 * - `text`: cosine of the weighted term vectors (exact words and Chinese pieces, `memoryTerms`;
 *   a piece counts only against a whole word);
 * - `trigram`: the same, but each query term counts by how much of it some memory word contains
 *   (trigram similarity, as pg_trgm's `word_similarity`): "spice" ≈ "spicy", "peanuts" ≈ "peanut";
 *   below `TRIGRAM_FLOOR` a term counts nothing (one shared trigram is chance, not meaning);
 * - `vector`: cosine of the embeddings, when an `Embedder` answered; below `VECTOR_FLOOR` nothing.
 *
 * The score is the mean of text and trigram; with a query vector it is half that and half the
 * vector signal, so a memory found only by meaning still ranks, and one found by both ranks first.
 */
export const TRIGRAM_FLOOR = 0.45;
export const VECTOR_FLOOR = 0.5;
/** Below this a match is noise (e.g. one shared character in a long question). */
export const DEFAULT_MIN_SCORE = 0.05;
export const DEFAULT_RECALL_LIMIT = 5;

export interface RecallSignals {
  /** Query-term similarities (aligned with the query terms): 0 or at least `TRIGRAM_FLOOR`. */
  readonly trigramSims: readonly number[];
  /** Cosine with the query's embedding; undefined when either has none. */
  readonly vector?: number | undefined;
}

const norm = (terms: readonly WeightedTerm[]): number =>
  Math.sqrt(terms.reduce((s, t) => s + t.weight ** 2, 0));

/** The score and the signals that matched, or undefined when nothing did. */
export function scoreMemory(
  query: readonly WeightedTerm[],
  memory: readonly WeightedTerm[],
  signals: RecallSignals,
  queryHasVector: boolean,
): { score: number; via: RecalledMemory['via'] } | undefined {
  const scale = norm(query) * norm(memory);
  const weights = new Map(memory.map((t) => [t.term, t.weight]));
  let dot = 0;
  let fuzzy = 0;
  query.forEach((q, i) => {
    const mine = weights.get(q.term) ?? 0;
    // A piece meets a word, never only a piece: 今天 and 每天 share 天 but not a meaning.
    if (Math.max(mine, q.weight) >= 1) dot += q.weight * mine;
    fuzzy += q.weight * (signals.trigramSims[i] ?? 0);
  });
  const text = scale === 0 ? 0 : Math.min(1, dot / scale);
  const trigram = scale === 0 ? 0 : Math.min(1, fuzzy / scale);
  const vector = signals.vector !== undefined && signals.vector >= VECTOR_FLOOR ? signals.vector : 0;
  const via: ('text' | 'trigram' | 'vector')[] = [];
  if (text > 0) via.push('text');
  if (trigram > 0) via.push('trigram');
  if (vector > 0) via.push('vector');
  if (via.length === 0) return undefined;
  const lexical = (text + trigram) / 2;
  return { score: queryHasVector ? (lexical + vector) / 2 : lexical, via };
}

const trigramsOf = (word: string): Set<string> => {
  const chars = [' ', ' ', ...word, ' '];
  const out = new Set<string>();
  for (let i = 0; i + 2 < chars.length; i++) out.add(`${chars[i]}${chars[i + 1]}${chars[i + 2]}`);
  return out;
};

/**
 * For each query term, how much of it the best memory word contains (share of its trigrams,
 * words padded as pg_trgm pads them), 0 below `TRIGRAM_FLOOR`. The in-memory store's stand-in
 * for pg_trgm's `word_similarity`; the SQL store asks PostgreSQL.
 */
export function trigramSimilarities(
  query: readonly WeightedTerm[],
  memory: readonly WeightedTerm[],
): number[] {
  // Against the memory's whole words only (as the SQL store's `segmented` column holds them).
  const words = memory.filter((m) => m.weight >= 1).map((m) => trigramsOf(m.term));
  return query.map((q) => {
    const mine = trigramsOf(q.term);
    let best = 0;
    for (const other of words) {
      let shared = 0;
      for (const t of mine) if (other.has(t)) shared++;
      best = Math.max(best, shared / mine.size);
    }
    return best >= TRIGRAM_FLOOR ? best : 0;
  });
}

/** Cosine similarity; undefined for vectors of different lengths or zero length. */
export function cosine(a: readonly number[], b: readonly number[]): number | undefined {
  if (a.length !== b.length || a.length === 0) return undefined;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? undefined : dot / Math.sqrt(na * nb);
}

/** Best first (newer first on a tie), at most `limit`, none below `minScore`. */
export function rankRecalled(
  found: readonly RecalledMemory[],
  options: { readonly limit?: number; readonly minScore?: number } = {},
): RecalledMemory[] {
  const limit = options.limit ?? DEFAULT_RECALL_LIMIT;
  const minScore = options.minScore ?? DEFAULT_MIN_SCORE;
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`recall: limit must be a positive integer, got ${limit}`);
  return found
    .filter((m) => m.score >= minScore)
    .sort((a, b) => b.score - a.score || b.createdAt - a.createdAt)
    .slice(0, limit);
}

/**
 * The text as stored: trimmed, non-blank, at most 500 characters (the `MemoryStore` contract);
 * anything else is a `RangeError`, so bad input never becomes a memory.
 */
export function memoryText(text: string): string {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (trimmed === '') throw new RangeError('remember: the text is blank');
  if ([...trimmed].length > MAX_MEMORY_CHARS)
    throw new RangeError(`remember: the text is over ${MAX_MEMORY_CHARS} characters`);
  return trimmed;
}

export const MAX_MEMORY_CHARS = 500;

/**
 * The embedding of one text, or undefined when there is no embedder or it failed: a memory is
 * then kept without a vector, a recall falls back to text and trigrams.
 */
export async function tryEmbed(
  embedder: { embed(texts: readonly string[]): Promise<number[][]> } | undefined,
  text: string,
): Promise<number[] | undefined> {
  if (embedder === undefined) return undefined;
  try {
    const [vector] = await embedder.embed([text]);
    return Array.isArray(vector) && vector.every((x) => Number.isFinite(x)) ? vector : undefined;
  } catch {
    return undefined; // the contract: a failing embedder never fails recall
  }
}
