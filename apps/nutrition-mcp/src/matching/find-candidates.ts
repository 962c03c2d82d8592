import type { Food } from '../data/food.js';
import { ALIASES, type Alias } from './aliases.js';
import { normalizeQuery, wordsOf } from './normalize.js';
import { matchTerms, rankCandidates, type Candidate } from './rank-candidates.js';

export interface CandidateLookup {
  /** The alias name that matched (as the table spells it), if any. */
  readonly matchedAlias: string | null;
  /** Ranked; the first is the representative entry. May be empty: then nothing is offered. */
  readonly candidates: readonly Candidate[];
  readonly note?: string;
}

const aliasByName = new Map<string, { alias: Alias; name: string }>(
  ALIASES.flatMap((alias) => alias.names.map((name) => [normalizeQuery(name), { alias, name }] as const)),
);

const IFCT_CODE = /^[a-z]\d{3}$/;

/**
 * Resolves a name to ranked IFCT entries: an alias (Chinese or English) first; else, for a
 * query that is an IFCT code, that entry; else the English name's words anywhere in the
 * table's names. A name with no alias and no English words finds nothing — never a guess.
 */
export function findCandidates(foods: readonly Food[], query: string): CandidateLookup {
  const normalized = normalizeQuery(query);
  const hit = aliasByName.get(normalized);
  if (hit !== undefined) {
    const { alias, name } = hit;
    const note = alias.note === undefined ? {} : { note: alias.note };
    const match = alias.match;
    if ('none' in match) return { matchedAlias: name, candidates: [], note: match.none };
    if ('codes' in match) {
      const candidates = match.codes.flatMap((code, index) => {
        const food = foods.find((f) => f.code === code);
        return food === undefined ? [] : [{ food, penalty: 0, termIndex: index, reasons: [] }];
      });
      return { matchedAlias: name, candidates: rankCandidates(candidates), ...note };
    }
    return { matchedAlias: name, candidates: matchTerms(foods, match.terms, match.groups), ...note };
  }
  if (IFCT_CODE.test(normalized)) {
    const food = foods.find((f) => f.code.toLowerCase() === normalized);
    return {
      matchedAlias: null,
      candidates: food === undefined ? [] : [{ food, penalty: 0, termIndex: 0, reasons: [] }],
    };
  }
  if (wordsOf(normalized).length === 0) {
    return { matchedAlias: null, candidates: [], note: 'No alias for this name; try its English name.' };
  }
  return { matchedAlias: null, candidates: matchTerms(foods, [normalized]) };
}
