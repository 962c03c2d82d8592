/**
 * One spelling per query: Unicode NFKC (full-width letters and spaces become ASCII),
 * lower case, whitespace trimmed and collapsed. Cache keys and alias look-ups both use it.
 */
export function normalizeQuery(query: string): string {
  return query.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The words of an English food name, lower case: `Pork, shoulder` → `pork`, `shoulder`. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}
