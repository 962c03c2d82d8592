import type { CircuitBreakerPolicy } from 'cockatiel';
import { cockatielNow } from './lazy-cockatiel.js';

export /** Runs `action` after `ms` off the event loop's books (a pending probe never keeps a process alive). */
function probeLater(ms: number, action: () => void | Promise<void>): void {
  const timer = setTimeout(() => void Promise.resolve(action()).catch(() => undefined), ms);
  timer.unref?.();
}

export async function runProbe(probe: () => boolean | Promise<boolean>): Promise<boolean> {
  try {
    return (await probe()) === true;
  } catch {
    return false;
  }
}

/**
 * The half-open probe of a cockatiel breaker, made by the guard itself: the breaker lets it
 * through as its one half-open call; a success closes it, a failure opens it again (and
 * `onBreak` schedules the next). A user's call that took the turn first makes this a no-op.
 */
export async function probeThrough(
  breaker: CircuitBreakerPolicy,
  probe: () => boolean | Promise<boolean>,
  openMs: number,
): Promise<void> {
  try {
    await breaker.execute(async () =>
      (await runProbe(probe)) ? { ok: true } : { ok: false, code: 'SERVICE_UNAVAILABLE' as const },
    );
  } catch (thrown) {
    // Open still (the clock of cockatiel is a little behind ours): try again shortly.
    // A cockatiel breaker exists, so cockatiel is loaded.
    const { BrokenCircuitError, CircuitState } = cockatielNow() as NonNullable<
      ReturnType<typeof cockatielNow>
    >;
    if (thrown instanceof BrokenCircuitError && breaker.state === CircuitState.Open)
      probeLater(Math.min(openMs, 1_000), () => probeThrough(breaker, probe, openMs));
  }
}
