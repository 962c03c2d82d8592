/**
 * The words of a memory or a query, for recall that works offline in Chinese and English alike.
 * Both memory stores (in memory and SQL) index and query with these, so they agree on what a
 * word is.
 */

/** A term and how much it counts: 1 for a whole word, less for a piece of a Chinese word. */
export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

/** The weight of a character or bigram taken out of a longer Chinese word. */
export const PIECE_WEIGHT = 0.5;

/** At most this many terms per text: a long query cannot make recall slow. */
const MAX_TERMS = 64;

// ICU's word segmenter splits Chinese into dictionary words for any locale tag; 'zh' is explicit.
// Made on first use: building it loads ICU's word dictionaries (~10–25 ms at `import('reins')`).
let segmenter: Intl.Segmenter | undefined;
const wordSegmenter = (): Intl.Segmenter => (segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' }));

const CJK = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/u;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/**
 * Words that appear everywhere and so say nothing about which memory is meant. Chinese ones are
 * single characters (particles, pronouns, measure words, the negation 不 — "不吃辣" and "不吃鱼"
 * must not look alike because of 不); a multi-character word is never dropped.
 */
const STOP = new Set([
  ...'的 了 吗 呢 吧 啊 呀 是 个 我 你 他 她 它 们 在 和 与 及 或 也 就 都 把 被 给 对 这 那 么 什 怎 样 有 要 会 能 想 不 没 很 还 又 再 得 地 着 过 上 下 一 点'.split(
    ' ',
  ),
  ...'a an the and or but of to in on at for with from by as is are was were be been am do does did doesnt dont didnt not no can cant will would should could i me my we our you your he him his she her it its they them their this that these those what which who how when where why there here about some any'.split(
    ' ',
  ),
]);

/** Lower-case letters and digits only (NFKC first, so full-width forms match half-width ones). */
const normalize = (segment: string): string => segment.normalize('NFKC').toLowerCase().replace(NOT_WORD, '');

/**
 * The segments of `text` that are words (`Intl.Segmenter`, granularity `word`), normalized,
 * stop words dropped, in order, each once.
 */
export function memoryWords(text: string): string[] {
  const words = new Set<string>();
  for (const { segment, isWordLike } of wordSegmenter().segment(text.slice(0, 2_000))) {
    if (isWordLike !== true) continue;
    const word = normalize(segment);
    if (word === '' || STOP.has(word) || (word.length === 1 && /[a-z]/.test(word))) continue;
    words.add(word);
    if (words.size >= MAX_TERMS) break;
  }
  return [...words];
}

/**
 * The weighted terms of `text`: its words (weight 1) and, for a Chinese word of two or more
 * characters, its characters and (from three characters) its bigrams at `PIECE_WEIGHT`.
 *
 * Why the pieces: the segmenter cuts the same meaning differently in different sentences —
 * "婆婆不吃辣" gives 不吃 while "婆婆能吃辣吗" gives 能吃, "花生米" stays one word while the memory
 * says 花生 — so whole words alone miss 吃 and 花生. With the pieces, "小宝不能吃花生米" recalls
 * "小宝对花生过敏" (花生 from 花生米) and a question about what to eat (吃) reaches "婆婆不吃辣"
 * (the contract suite has both). Pieces count half, so a whole-word match still ranks first.
 */
export function memoryTerms(text: string): WeightedTerm[] {
  const terms = new Map<string, number>();
  const add = (term: string, weight: number): void => {
    if (term === '' || STOP.has(term)) return;
    terms.set(term, Math.max(terms.get(term) ?? 0, weight));
  };
  for (const word of memoryWords(text)) {
    add(word, 1);
    if (word.length < 2 || !CJK.test(word)) continue;
    const chars = [...word];
    for (const char of chars) add(char, PIECE_WEIGHT);
    if (chars.length >= 3)
      for (let i = 0; i + 1 < chars.length; i++) add(`${chars[i]}${chars[i + 1]}`, PIECE_WEIGHT);
  }
  return [...terms].slice(0, MAX_TERMS).map(([term, weight]) => ({ term, weight }));
}
