/**
 * Side effects the loop needs, injectable so tests can fake them without patching modules.
 * Defaults use only web-standard globals (no `node:` imports in the core).
 */
export interface RunDeps {
  /**
   * Epoch milliseconds, fractional, for timestamps and durations alike (one read serves
   * both). The default is the monotonic clock anchored to the wall clock, re-anchored each
   * second so a long-lived process does not drift from wall time.
   */
  now(): number;
  /** UUIDv4 for run ids and act ids. */
  newId(): string;
  setTimer(callback: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const defaultDeps: RunDeps = Object.freeze({
  now: anchoredNow,
  newId: () => flatUuid(),
  setTimer: (callback: () => void, ms: number): unknown => {
    const handle = setTimeout(callback, ms);
    // A pending deadline must not keep a finished CLI process alive.
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimer: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

export function withDefaults(deps: Partial<RunDeps> | undefined): RunDeps {
  return deps === undefined ? defaultDeps : { ...defaultDeps, ...deps };
}

/**
 * `crypto.randomUUID()` returns a string V8 keeps as a rope of ~14 pieces (~480 bytes);
 * reading one character flattens it to 36 bytes, and ids live as long as the run's log.
 */
function flatUuid(): string {
  const id = crypto.randomUUID();
  id.charCodeAt(0);
  return id;
}

let anchor = Date.now() - performance.now();
let anchoredAt = performance.now();

function anchoredNow(): number {
  const elapsed = performance.now();
  if (elapsed - anchoredAt > 1_000) {
    anchor = Date.now() - elapsed;
    anchoredAt = elapsed;
  }
  return anchor + elapsed;
}
