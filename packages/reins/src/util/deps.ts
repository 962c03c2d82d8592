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
 * flattening it costs twice the call; this is both flat (36 bytes) and cheaper. The pool is
 * 64 KiB (4,096 ids): `getRandomValues` costs ~10 µs a call whatever its size up to there, so
 * a 4 KiB pool spent ~40 ns of every id on refills (~8 ns now); and the 36 characters go to
 * `String.fromCharCode` as arguments, not spread from an array (~2× faster; see bench/).
 */
const POOL_BYTES = 16 * 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;
const HEX = Array.from({ length: 16 }, (_, i) => i.toString(16).charCodeAt(0));
const DASH = 45;

/** The hex digit (char code) of the high and the low half of a byte. */
const hi = (byte: number): number => HEX[byte >> 4] as number;
const lo = (byte: number): number => HEX[byte & 15] as number;

export function uuidV4(): string {
  if (poolOffset === POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const p = pool;
  const s = poolOffset;
  poolOffset += 16;
  const b = (i: number): number => p[s + i] as number;
  const version = (b(6) & 0x0f) | 0x40; // version 4
  const variant = (b(8) & 0x3f) | 0x80; // RFC 4122 variant
  // prettier-ignore
  return String.fromCharCode(
    hi(b(0)), lo(b(0)), hi(b(1)), lo(b(1)), hi(b(2)), lo(b(2)), hi(b(3)), lo(b(3)), DASH,
    hi(b(4)), lo(b(4)), hi(b(5)), lo(b(5)), DASH,
    hi(version), lo(version), hi(b(7)), lo(b(7)), DASH,
    hi(variant), lo(variant), hi(b(9)), lo(b(9)), DASH,
    hi(b(10)), lo(b(10)), hi(b(11)), lo(b(11)), hi(b(12)), lo(b(12)),
    hi(b(13)), lo(b(13)), hi(b(14)), lo(b(14)), hi(b(15)), lo(b(15)),
  );
}

/**
 * A clock reading `monotonic` anchored to `wall`, re-anchored each second so a long-lived
 * process does not drift from wall time, and never going backwards (a wall clock stepped
 * back by NTP or a VM resume would otherwise make a negative duration) — unless `monotonic`
 * itself goes back, which only a replaced clock does (fake timers): then it starts over.
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
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const elapsed = monotonic();
    if (elapsed < last) {
      // The monotonic clock went back: it is another clock now (a test's fake timers came or
      // went). Start over with it; holding the old reading would freeze time for the new one.
      anchoredAt = Number.NEGATIVE_INFINITY;
      latest = Number.NEGATIVE_INFINITY;
    }
    last = elapsed;
    if (elapsed - anchoredAt > 1_000) {
      anchor = wall() - elapsed;
      anchoredAt = elapsed;
    }
    latest = Math.max(latest, anchor + elapsed);
    return latest;
  };
}
