/**
 * Fixed-window counters: the one primitive the daily quota and the rate limit need.
 * Contract: `add` adds `amount` to `key` (creating it with a lifetime of `windowMs` when it
 * does not exist) and returns the new count and the time left in its window; `peek` reads
 * without changing anything (0 when absent). Both may reject (a store that is away); the
 * caller decides what a failure means — for quotas, it allows (see `fail-open.ts`).
 */
export interface CounterStore {
  readonly name: string;
  add(key: string, amount: number, windowMs: number): Promise<WindowCount>;
  peek(key: string): Promise<WindowCount>;
  /** A cheap round trip for `/health` (rejects when the store is away). */
  ping(): Promise<void>;
}

export interface WindowCount {
  readonly count: number;
  /** Milliseconds until the window resets (0 when the key is absent). */
  readonly resetInMs: number;
}

/**
 * In-process counters (one instance: embedded mode and tests). Expired windows are swept
 * lazily and at most `maxKeys` windows are kept (the oldest dropped first), so a flood of
 * distinct keys (IP × query hash) cannot grow memory without bound.
 */
export function memoryCounterStore(options: { now?: () => number; maxKeys?: number } = {}): CounterStore {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const windows = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string, at: number): { count: number; resetAt: number } | undefined => {
    const window = windows.get(key);
    if (window === undefined || window.resetAt > at) return window;
    windows.delete(key);
    return undefined;
  };
  return {
    name: 'memory',
    add: async (key, amount, windowMs) => {
      const at = now();
      let window = live(key, at);
      if (window === undefined) {
        if (windows.size >= maxKeys) {
          // Map iteration order is insertion order: the first key is the oldest window.
          const oldest = windows.keys().next();
          if (oldest.done !== true) windows.delete(oldest.value);
        }
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += amount;
      return { count: window.count, resetInMs: window.resetAt - at };
    },
    peek: async (key) => {
      const at = now();
      const window = live(key, at);
      return window === undefined
        ? { count: 0, resetInMs: 0 }
        : { count: window.count, resetInMs: window.resetAt - at };
    },
    ping: async () => {},
  };
}
