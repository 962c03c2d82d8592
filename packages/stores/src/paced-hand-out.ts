import { setImmediate } from 'node:timers';

/** How many waiters a turn of the event loop resumes: as many as fit in `budgetMs`, at most `wave`. */
export interface Pace {
  /** A turn hands out no more once this much time has gone on the waiters it resumed. */
  readonly budgetMs: number;
  /** At most this many per turn (one `setImmediate` each is queued ahead). */
  readonly wave: number;
  /** Milliseconds, monotonic. */
  now(): number;
}

export const DEFAULT_PACE: Pace = Object.freeze({
  budgetMs: 2,
  wave: 16,
  now: () => performance.now(),
});

/**
 * Hands out waiting answers, paced by turns of the event loop: `handNext()` resumes the next
 * waiter and says whether any is left (after `false` it is not called again, so the source can
 * close itself in the same synchronous step). The first is handed at once; then each turn
 * resumes waiters one at a time — each one's continuation runs to its next wait (Node runs the
 * microtasks between two immediates) before the next is handed — until `pace.budgetMs` has gone
 * by since this hand-out's first waiter of the turn, or `pace.wave` were handed; the loop then
 * runs its timers and sockets. The budget is this hand-out's: several at once (a database's
 * answers, a few group commits) each take theirs in a turn, and the waiter that spends it runs
 * to its end. `left()`, when given, is how many may be left at most (a wave queues no more
 * immediates than that). A `handNext` that throws counts as one handed, and the hand-out goes
 * on while `left()` says some may be left; then the promise rejects with the first error.
 *
 * Why not all at once: a statement that answers many waiters (a group commit of 200 runs'
 * turns) would resume them as one block of the event loop, hundreds of milliseconds in which
 * `/health` and every timer wait. Why not one per turn, as before: a turn under load lasts
 * ~15 ms, so the last of 200 waited ~3 s — the first wave of 200 requests at once took up to
 * 4.7 s on PostgreSQL, 3.5 s of it in one such hand-out (docs/performance.md).
 */
export function handOutPaced(
  handNext: () => boolean,
  pace: Pace = DEFAULT_PACE,
  left: () => number = () => pace.wave,
): Promise<void> {
  let finished = false;
  let failed: { error: unknown } | undefined;
  const next = (): void => {
    try {
      finished = !handNext();
    } catch (error) {
      failed ??= { error }; // a bug in the source: no waiter after it is stranded, and it is reported
      finished = left() <= 0;
    }
  };
  next();
  if (finished) return failed === undefined ? Promise.resolve() : Promise.reject(failed.error);
  return new Promise((resolve, reject) => {
    let handed = 0;
    let began = 0;
    const tick = (last: boolean): void => {
      if (!finished) {
        if (handed === 0) began = pace.now(); // the turn's own clock starts with its first waiter
        if (handed === 0 || pace.now() - began < pace.budgetMs) {
          handed++;
          next();
        }
      }
      if (!last) return;
      if (!finished)
        wave(); // queued now, run in the next turn
      else if (failed === undefined) resolve();
      else reject(failed.error);
    };
    const wave = (): void => {
      handed = 0;
      const size = Math.max(1, Math.min(pace.wave, left()));
      for (let k = 1; k <= size; k++) setImmediate(tick, k === size);
    };
    wave();
  });
}

/** `handOutPaced` over a list: `hand(item)` for each, in order. */
export function handEachPaced<T>(items: readonly T[], hand: (item: T) => void, pace?: Pace): Promise<void> {
  let next = 0;
  return handOutPaced(
    () => {
      if (next >= items.length) return false;
      hand(items[next++] as T);
      return next < items.length;
    },
    pace,
    () => items.length - next,
  );
}
