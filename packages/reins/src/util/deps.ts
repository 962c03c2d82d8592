/**
 * Side effects the loop needs, injectable so tests can fake them without patching modules.
 * Defaults use only web-standard globals (no `node:` imports in the core).
 */
export interface RunDeps {
  /**
   * Epoch milliseconds, fractional, for timestamps and durations alike (one read serves
   * both). The default is the monotonic clock anchored to the wall clock, re-anchored each
   * second so a long-lived process does not drift from wall time, and never going backwards.
   */
  now(): number;
  /** UUIDv4 for run ids and act ids. */
  newId(): string;
  setTimer(callback: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const defaultDeps: RunDeps = Object.freeze({
  now: anchoredClock(),
  newId: uuidV4,
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
 * A UUIDv4 from a pooled CSPRNG buffer, built as one flat string. `crypto.randomUUID()`
 * returns a rope V8 keeps as ~14 pieces (~480 bytes while the run's log holds it), and
 * flattening it costs twice the call; this is both flat (36 bytes) and cheaper.
 */
const POOL_BYTES = 16 * 256;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;
const HEX = Array.from({ length: 16 }, (_, i) => i.toString(16).charCodeAt(0));
const codes: number[] = new Array<number>(36).fill(0);

export function uuidV4(): string {
  if (poolOffset === POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += 16;
  let j = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) codes[j++] = 45; // '-'
    let byte = pool[start + i] as number;
    if (i === 6)
      byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 4122 variant
    codes[j++] = HEX[byte >> 4] as number;
    codes[j++] = HEX[byte & 15] as number;
  }
  return String.fromCharCode(...codes);
}

/**
 * A clock reading `monotonic` anchored to `wall`, re-anchored each second so a long-lived
 * process does not drift from wall time, and never going backwards (a wall clock stepped
 * back by NTP or a VM resume would otherwise make a negative duration).
 */
export function anchoredClock(
  wall: () => number = () => Date.now(),
  monotonic: () => number = () => performance.now(),
): () => number {
  // Anchored at the first reading, not when made: `defaultDeps` is made at `import('reins')`,
  // and the first read of the clocks can load their implementation.
  let anchor = 0;
  let anchoredAt = Number.NEGATIVE_INFINITY;
  let latest = 0;
  return () => {
    const elapsed = monotonic();
    if (elapsed - anchoredAt > 1_000) {
      anchor = wall() - elapsed;
      anchoredAt = elapsed;
    }
    latest = Math.max(latest, anchor + elapsed);
    return latest;
  };
}
