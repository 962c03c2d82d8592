import type { Food } from '../data/food.js';
import { wordsOf } from './normalize.js';

/**
 * The matching rule (seed 000 §6). "Shortest name wins" once matched 猪肉 to pure fat
 * (816 kcal instead of 395) and, on equal lengths, followed the upstream order. Now a
 * candidate's penalty says what kind of entry it is, and the list is sorted by
 * (penalty, term preference, IFCT code): a total order, so the input order never matters.
 */
export interface Candidate {
  readonly food: Food;
  /** Lower is more representative. 0: the whole food as named. */
  readonly penalty: number;
  /** Which of the alias's terms found it (0 = the preferred one). */
  readonly termIndex: number;
  /** The penalty's reasons, e.g. `["offal"]`. */
  readonly reasons: readonly string[];
}

interface PenaltyRule {
  readonly reason: string;
  readonly points: number;
  readonly words: ReadonlySet<string>;
}

const rule = (reason: string, points: number, words: string): PenaltyRule => ({
  reason,
  points,
  words: new Set(words.split(' ')),
});

/** Words after the matched term that make an entry less representative of the food. */
const PENALTY_RULES: readonly PenaltyRule[] = [
  rule(
    'offal',
    100,
    'lungs lung heart liver stomach spleen kidney kidneys tube intestine brain tongue tripe testis gizzard',
  ),
  rule('fat', 100, 'fat lard suet tallow oil ghee'),
  rule(
    'processed',
    50,
    'ham bacon sausage omlet omelette boiled roasted fried dried flakes puffed juice pickled canned smoked processed powder',
  ),
  rule(
    'part',
    10,
    'leg legs thigh breast wing white yolk chops shoulder round leaves stalk stem flower seed seeds',
  ),
];
/** The term only starts a longer name (`Rice flakes`, `Chicken mushroom`): another food. */
const COMPOUND_NAME = { reason: 'compound name', points: 20 } as const;
/** The term appears, but not at the start (`Poultry, chicken, liver`). */
const NOT_AT_HEAD = { reason: 'not at head', points: 30 } as const;

interface NameWord {
  readonly word: string;
  readonly segment: number;
}

function nameWords(name: string): NameWord[] {
  return name
    .split(',')
    .flatMap((segment, index) => wordsOf(segment).map((word) => ({ word, segment: index })));
}

/** Scores one food against one term; `undefined` when the term's words are not in its name. */
export function scoreFood(food: Food, term: string, termIndex = 0): Candidate | undefined {
  const termWords = wordsOf(term);
  const words = nameWords(food.name);
  if (termWords.length === 0) return undefined;
  let start = -1;
  for (let p = 0; p + termWords.length <= words.length && start < 0; p++) {
    if (termWords.every((w, i) => words[p + i]?.word === w)) start = p;
  }
  if (start < 0) return undefined;
  const end = start + termWords.length;
  const reasons: string[] = [];
  let penalty = 0;
  if (start > 0) {
    reasons.push(NOT_AT_HEAD.reason);
    penalty += NOT_AT_HEAD.points;
  }
  const last = words[end - 1];
  const next = words[end];
  if (start === 0 && last !== undefined && next !== undefined && next.segment === last.segment) {
    reasons.push(COMPOUND_NAME.reason);
    penalty += COMPOUND_NAME.points;
  }
  const rest = words.filter((_, i) => i < start || i >= end).map((w) => w.word);
  for (const r of PENALTY_RULES) {
    if (rest.some((w) => r.words.has(w))) {
      reasons.push(r.reason);
      penalty += r.points;
    }
  }
  return { food, penalty, termIndex, reasons };
}

/** Sorted by (penalty, termIndex, code); returns a new array. Codes are unique, so this is a total order. */
export function rankCandidates(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort(
    (a, b) =>
      a.penalty - b.penalty ||
      a.termIndex - b.termIndex ||
      (a.food.code < b.food.code ? -1 : a.food.code > b.food.code ? 1 : 0),
  );
}

/**
 * Every food that one of `terms` names (the first term that matches counts), optionally
 * limited to IFCT food groups, ranked.
 */
export function matchTerms(
  foods: readonly Food[],
  terms: readonly string[],
  groups?: readonly string[],
): Candidate[] {
  const found: Candidate[] = [];
  for (const food of foods) {
    if (groups !== undefined && !groups.includes(food.group)) continue;
    for (const [index, term] of terms.entries()) {
      const candidate = scoreFood(food, term, index);
      if (candidate !== undefined) {
        found.push(candidate);
        break;
      }
    }
  }
  return rankCandidates(found);
}
