/**
 * cockatiel (breakers, concurrency caps, retry backoff), loaded on first need instead of at
 * `import('reins')`: a run whose tools succeed never uses it. Runs start the load when they
 * start (`preloadCockatiel`), so it is usually in hand before a tool first fails; until then
 * the guard counts failures itself (see `ToolGuard`).
 */
import type * as CockatielModule from 'cockatiel';

export type Cockatiel = typeof CockatielModule;

let loaded: Cockatiel | undefined;
let loading: Promise<Cockatiel> | undefined;

export function loadCockatiel(): Promise<Cockatiel> {
  loading ??= import('cockatiel').then((module) => (loaded = module));
  return loading;
}

/** The module if loaded (synchronous use), else `undefined`. */
export function cockatielNow(): Cockatiel | undefined {
  return loaded;
}

/** Starts loading (a run does, when it starts); one check once it is loaded. */
export function preloadCockatiel(): void {
  if (loading === undefined) void loadCockatiel().catch(() => undefined);
}
