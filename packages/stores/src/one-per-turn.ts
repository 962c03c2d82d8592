import { setImmediate } from 'node:timers';

/**
 * Calls `hand(item)` for each item, one per turn of the event loop (the first at once): each
 * caller's continuation runs to its next wait, then the loop runs its timers and sockets before
 * the next. A statement that answers many waiters at once (a group commit of 100 runs' appends)
 * would otherwise resume them all as one block of the event loop: at 200 runs in flight,
 * hundreds of milliseconds in which `/health` and every timer wait.
 */
export async function onePerTurn<T>(items: readonly T[], hand: (item: T) => void): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    hand(items[i] as T);
  }
}
