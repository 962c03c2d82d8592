import { loadRepairParsers, preloadRepairParsers } from './decision/repair-parsers.js';
import { loadCockatiel, preloadCockatiel } from './policies/lazy-cockatiel.js';

/**
 * The parts of reins that load on first need rather than at `import('reins')`: the repair
 * parsers (JSON5, jsonrepair) and cockatiel (breakers, caps, retry backoff). A run starts
 * loading them when it starts (`preloadLazyParts`), off its hot path.
 */
export function preloadLazyParts(): void {
  preloadRepairParsers();
  preloadCockatiel();
}

/**
 * Loads them now. For code that uses the parsers or the tool guards outside a run and wants
 * every call synchronous from the first (e.g. `parseStructured` on a reply that needs repair,
 * which otherwise answers `repairPending` until they are loaded).
 */
export async function loadLazyParts(): Promise<void> {
  await Promise.all([loadRepairParsers(), loadCockatiel()]);
}
