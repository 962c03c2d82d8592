import { describe, expect, it } from 'vitest';
import { PendingWait } from '../src/loop/pending-wait.js';

/** A clock the test moves by hand and timers that fire only when the test says so. */
function fakeTime() {
  let now = 1_000;
  const timers = new Map<number, () => void>();
  let next = 0;
  return {
    now: () => now,
    advance: (ms: number) => (now += ms),
    fire: () => [...timers.values()].forEach((cb) => cb()),
    timers: {
      setTimer: (cb: () => void, _ms: number) => (timers.set(++next, cb), next),
      clearTimer: (handle: unknown) => timers.delete(handle as number),
    },
  };
}

describe('PendingWait (approvals and questions)', () => {
  it('an answer after the expiry time is refused and ends the wait as expired, even before the timer fires', async () => {
    const t = fakeTime();
    const wait = new PendingWait<{ expiresAt: number }, { kind: 'yes'; at: number }>(
      t.now,
      t.timers,
      'a thing',
    );
    let settled = 0;
    const outcome = wait.open({ expiresAt: 1_500 }, () => settled++);
    t.advance(500); // now = expiresAt; the timer has not run yet (a busy loop)
    expect(wait.answer((at) => ({ kind: 'yes', at }))).toBe('expired');
    expect(await outcome).toEqual({ kind: 'expired', at: 1_500 });
    expect(settled).toBe(1);
    expect(wait.request).toBeUndefined();
  });

  it('settles once: a second answer, the timer and a cancel after an answer change nothing', async () => {
    const t = fakeTime();
    const wait = new PendingWait<{ expiresAt: number }, { kind: 'yes'; at: number }>(
      t.now,
      t.timers,
      'a thing',
    );
    let settled = 0;
    const outcome = wait.open({ expiresAt: 2_000 }, () => settled++);
    expect(wait.answer((at) => ({ kind: 'yes', at }))).toBe('answered');
    expect(wait.answer((at) => ({ kind: 'yes', at }))).toBe('none');
    t.fire();
    wait.close();
    expect(await outcome).toEqual({ kind: 'yes', at: 1_000 });
    expect(settled).toBe(1);
  });

  it('one at a time (a programmer error otherwise); cancel ends it unanswered', async () => {
    const t = fakeTime();
    const wait = new PendingWait<{ expiresAt: number }, never>(t.now, t.timers, 'an approval');
    const outcome = wait.open({ expiresAt: 2_000 }, () => undefined);
    expect(() => wait.open({ expiresAt: 3_000 }, () => undefined)).toThrow('an approval is already pending');
    wait.close();
    expect(await outcome).toEqual({ kind: 'cancelled', at: 1_000 });
  });
});
