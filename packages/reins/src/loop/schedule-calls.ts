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
  // Tracked calls never reject: the first failure is kept, nothing more starts, and every call
  // already running is waited for before it is thrown (none is left running, or settling into
  // a log that has ended, once the step has failed).
  const running = new Set<Promise<void>>();
  let failed: { readonly error: unknown } | undefined;
  try {
    for (let i = 0; i < calls.length && failed === undefined; i++) {
      const call = calls[i] as C;
      const byItself = alone(call);
      if (byItself) await Promise.all(running);
      else while (running.size >= concurrency) await Promise.race(running);
      if (failed !== undefined || aborted()) break;
      const pending = start(call, i);
      if (pending === undefined) continue;
      if (byItself) {
        await pending;
        continue;
      }
      const tracked: Promise<void> = pending.then(
        () => void running.delete(tracked),
        (error: unknown) => {
          running.delete(tracked);
          failed ??= { error };
        },
      );
      running.add(tracked);
    }
  } finally {
    await Promise.all(running);
  }
  if (failed !== undefined) throw failed.error;
}
