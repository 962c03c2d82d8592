/**
 * Runs the calls of one step in order: calls side by side, at most `concurrency` at a time; a
 * call for which `alone` holds waits for every call before it and runs by itself. Nothing
 * starts once `aborted()` is true. `start` returns the call's promise, or `undefined` when it
 * already settled synchronously.
 */
export async function scheduleCalls<C>(
  calls: readonly C[],
  concurrency: number,
  alone: (call: C) => boolean,
  aborted: () => boolean,
  start: (call: C, index: number) => Promise<void> | undefined,
): Promise<void> {
  const running = new Set<Promise<void>>();
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as C;
    const byItself = alone(call);
    if (byItself) await Promise.all(running);
    else while (running.size >= concurrency) await Promise.race(running);
    if (aborted()) break;
    const pending = start(call, i);
    if (pending === undefined) continue;
    if (byItself) {
      await pending;
      continue;
    }
    const tracked: Promise<void> = pending.then(() => void running.delete(tracked));
    running.add(tracked);
  }
  await Promise.all(running);
}
