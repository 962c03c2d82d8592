import type { Nutrients } from '../data/food.js';

export const SOURCE = 'IFCT 2017' as const;
/** Stamped by this code path (an exact row of the table), never by what a model claims. */
export const PROVENANCE = 'mcp_exact' as const;

export type LookupErrorCode = 'INVALID_PARAMETER' | 'NOT_FOUND' | 'SERVICE_UNAVAILABLE';

/** An error that crosses the boundary: data with a code, not an exception. */
export interface LookupError {
  readonly code: LookupErrorCode;
  readonly message: string;
}

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: LookupError };

export interface SearchCandidate {
  readonly code: string;
  readonly name: string;
  readonly group: string;
  readonly matchedAlias: string | null;
  /** Per 100 g; `null` where the table gives no energy (the oils). */
  readonly energyKcal: number | null;
  readonly energyKj: number | null;
  readonly provenance: typeof PROVENANCE;
}

export interface SearchResult {
  readonly query: string;
  readonly matchedAlias: string | null;
  /** Code of the representative entry (the first candidate); `null` when nothing matched. */
  readonly representativeCode: string | null;
  readonly candidates: readonly SearchCandidate[];
  readonly note?: string;
  readonly source: typeof SOURCE;
}

export interface FoodDetail {
  readonly code: string;
  readonly name: string;
  readonly scientificName: string;
  readonly group: string;
  readonly matchedAlias: string | null;
  readonly basis: 'per 100 g edible portion';
  readonly per100g: Nutrients;
  readonly note?: string;
  readonly provenance: typeof PROVENANCE;
  readonly source: typeof SOURCE;
}
