/**
 * Where looked-up results are kept.
 * Contract: `get` resolves to the stored string or `undefined` (missing or expired); `set`
 * stores with a time to live. Either may reject when the backend is away; the caller
 * (`cachedLookup`) treats that as a miss, never as an error of the lookup.
 */
export interface CacheStore {
  readonly backend: 'memory' | 'redis';
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** `down` when the backend cannot be reached right now (health reports it). */
  state(): 'ready' | 'down';
  close(): Promise<void>;
}

/**
 * The version inside every key. Bump it when what a lookup returns changes (a matching
 * rule, the data): old entries are then simply never read again and expire by TTL —
 * nothing is deleted. v1 held the "shortest name" matches (猪肉 → pure fat).
 */
export const CACHE_VERSION = 2;

export type LookupOp = 'search' | 'code' | 'name';

/** `nutrition:v<version>:<op>:<normalized query>` */
export function cacheKey(op: LookupOp, normalizedQuery: string, version: number = CACHE_VERSION): string {
  if (!Number.isInteger(version) || version < 1)
    throw new Error(`cache version must be a positive integer: ${version}`);
  return `nutrition:v${version}:${op}:${normalizedQuery}`;
}
