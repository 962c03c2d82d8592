import type { BreakerState } from './attempt-result.js';

/** A breaker's settings: consecutive failures that open it, how long it stays open. */
export interface BreakerSettings {
  readonly failures: number;
  readonly openMs: number;
}

export type BreakerVerdict = 'pass' | 'probe' | 'refuse';

/**
 * Breaker state kept outside the process (e.g. Redis in `@reins/server`), so every instance
 * sees one breaker per tool. Same semantics as the in-process (cockatiel) breaker:
 * `failures` consecutive failures open it for `openMs`; then one attempt is let through as a
 * probe (the others are refused while it runs); its success closes the breaker, its failure
 * opens it again. A success while closed resets the count. Each operation is atomic.
 */
export interface BreakerStore {
  /** Before an attempt: `pass` (closed), `probe` (this attempt is the one probe) or `refuse` (open). */
  admit(tool: string, settings: BreakerSettings): Promise<{ verdict: BreakerVerdict; state: BreakerState }>;
  /** After an attempt that is a verdict on the tool; returns the breaker's state. */
  record(tool: string, settings: BreakerSettings, failed: boolean, probe: boolean): Promise<BreakerState>;
}

/**
 * Breakers in memory, with the store's semantics (for tests and as the reference
 * implementation; the in-process default stays cockatiel). A probe that never reports
 * frees its turn after `probeLeaseMs` (default 60 000).
 */
export function memoryBreakerStore(
  options: { now?: () => number; probeLeaseMs?: number } = {},
): BreakerStore {
  const now = options.now ?? Date.now;
  const lease = options.probeLeaseMs ?? 60_000;
  const breakers = new Map<string, { failures: number; openUntil: number; probeUntil: number }>();
  const get = (tool: string) => {
    let b = breakers.get(tool);
    if (b === undefined) {
      b = { failures: 0, openUntil: 0, probeUntil: 0 };
      breakers.set(tool, b);
    }
    return b;
  };
  const state = (b: { openUntil: number }, at: number): BreakerState =>
    b.openUntil === 0 ? 'closed' : b.openUntil > at ? 'open' : 'half_open';
  return {
    admit: async (tool) => {
      const at = now();
      const b = get(tool);
      const s = state(b, at);
      if (s === 'closed') return { verdict: 'pass', state: s };
      if (s === 'open' || b.probeUntil > at) return { verdict: 'refuse', state: s };
      b.probeUntil = at + lease;
      return { verdict: 'probe', state: s };
    },
    record: async (tool, settings, failed, probe) => {
      const at = now();
      const b = get(tool);
      if (probe) {
        b.probeUntil = 0;
        b.failures = 0;
        b.openUntil = failed ? at + settings.openMs : 0;
      } else if (b.openUntil === 0) {
        // A late report from an attempt let through before the breaker opened changes nothing.
        b.failures = failed ? b.failures + 1 : 0;
        if (b.failures >= settings.failures) {
          b.failures = 0;
          b.openUntil = at + settings.openMs;
        }
      }
      return state(b, at);
    },
  };
}
