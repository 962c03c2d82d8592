import { loadRepairParsers, preloadRepairParsers } from './decision/repair-parsers.js';
import { loadCockatiel, preloadCockatiel } from './policies/lazy-cockatiel.js';
import { loadZod, preloadZod } from './util/lazy-zod.js';

/**
 * The parts of reins that load on first need rather than at `import('reins')`: the repair
 * parsers (JSON5, jsonrepair), cockatiel (breakers, caps, retry backoff) and zod (for
 * `decisionSchema`; user schemas are used through their own methods). A run starts loading
 * them when it starts (`preloadLazyParts`), off its hot path.
 */
export function preloadLazyParts(): void {
  preloadRepairParsers();
  preloadCockatiel();
  preloadZod();
}

/**
 * Loads them now. For code that uses the parsers, the tool guards or `decisionSchema` outside
 * a run and wants every call synchronous from the first (e.g. `parseStructured` on a reply that
 * needs repair, which otherwise answers `repairPending` until they are loaded).
 */
export async function loadLazyParts(): Promise<void> {
  await Promise.all([loadRepairParsers(), loadCockatiel(), loadZod()]);
}
