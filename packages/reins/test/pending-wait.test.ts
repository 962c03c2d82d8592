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
    scheduled: () => timers.size,
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

  it('a wait opened past its expiry (a run rebuilt after nobody held it) settles expired in a microtask, with no timer', async () => {
    const t = fakeTime();
    const wait = new PendingWait<{ expiresAt: number }, never>(t.now, t.timers, 'an approval');
    let settledAt: number | undefined;
    const outcome = wait.open({ expiresAt: 900 }, (o) => (settledAt = o.at));
    expect(wait.request).toEqual({ expiresAt: 900 }); // paused first: the caller logs its pause
    await Promise.resolve(); // one microtask: no timer is needed (a 0 ms timer lost the race to a reader)
    expect(settledAt).toBe(1_000);
    expect(wait.request).toBeUndefined();
    expect(await outcome).toEqual({ kind: 'expired', at: 1_000 });
    expect(t.scheduled()).toBe(0);
  });

  it('a wait opened exactly at its expiry time is expired too (as an answer at that moment would be)', async () => {
    const t = fakeTime();
    const wait = new PendingWait<{ expiresAt: number }, never>(t.now, t.timers, 'a question');
    expect(await wait.open({ expiresAt: 1_000 }, () => undefined)).toEqual({ kind: 'expired', at: 1_000 });
  });
});
