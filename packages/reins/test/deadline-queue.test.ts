import { describe, expect, it } from 'vitest';
import { QueuedDeadline } from '../src/loop/deadline-queue.js';
import type { RunDeps } from '../src/util/deps.js';

/** A clock and timers moved by hand: `advance` fires what is due, in order. */
function fakeTime(): { deps: RunDeps; advance(ms: number): void; timers(): number[]; set: number } {
  let now = 0;
  let next = 0;
  const pending = new Map<number, { at: number; fire: () => void }>();
  const state = {
    set: 0,
    deps: {
      now: () => now,
      newId: () => 'id',
      setTimer: (fire: () => void, ms: number) => {
        state.set++;
        pending.set(++next, { at: now + ms, fire });
        return next;
      },
      clearTimer: (handle: unknown) => void pending.delete(handle as number),
    },
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...pending].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        pending.delete(due[0]);
        now = due[1].at;
        due[1].fire();
      }
      now = until;
    },
    timers: () => [...pending.values()].map((t) => t.at),
  };
  return state;
}

class Entry extends QueuedDeadline {
  constructor(
    readonly name: string,
    readonly passed: string[],
  ) {
    super();
  }

  deadlinePassed(): void {
    this.passed.push(this.name);
  }
}

describe('QueuedDeadline', () => {
  it('deadlines of one length share one timer and pass in order, each at its own time', () => {
    const time = fakeTime();
    const passed: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => new Entry(name, passed)) as [Entry, Entry, Entry];
    a.startDeadline(time.deps, 100, 0);
    time.advance(10);
    b.startDeadline(time.deps, 100, 10);
    time.advance(10);
    c.startDeadline(time.deps, 100, 20);
    expect(time.timers()).toEqual([100]);
    time.advance(85); // t = 105
    expect(passed).toEqual(['a']);
    expect(time.timers()).toEqual([110]);
    time.advance(20); // t = 125
    expect(passed).toEqual(['a', 'b', 'c']);
    expect(time.timers()).toEqual([]);
  });

  it('a cleared deadline never passes; the timer set for it is set again for the next', () => {
    const time = fakeTime();
    const passed: string[] = [];
    const a = new Entry('a', passed);
    const b = new Entry('b', passed);
    a.startDeadline(time.deps, 100, 0);
    time.advance(30);
    b.startDeadline(time.deps, 100, 30);
    a.clearDeadline();
    time.advance(70); // t = 100: a's timer fires, b is not due
    expect(passed).toEqual([]);
    expect(time.timers()).toEqual([130]);
    time.advance(30);
    expect(passed).toEqual(['b']);
  });

  it('leaves no timer behind when its last deadline is cleared, and sets one again for the next', () => {
    const time = fakeTime();
    const passed: string[] = [];
    const a = new Entry('a', passed);
    a.startDeadline(time.deps, 50, 0);
    a.clearDeadline();
    a.clearDeadline(); // twice is harmless
    expect(time.timers()).toEqual([]);
    time.advance(10);
    a.startDeadline(time.deps, 50, 10);
    expect(time.timers()).toEqual([60]);
    time.advance(50);
    expect(passed).toEqual(['a']);
  });

  it('a timer that fires a little early still ends the deadline it was set for', () => {
    const passed: string[] = [];
    let fire: (() => void) | undefined;
    const deps: RunDeps = {
      now: () => 99.9, // the clock reads just short of the due time when the timer fires
      newId: () => 'id',
      setTimer: (callback) => (fire = callback),
      clearTimer: () => undefined,
    };
    new Entry('a', passed).startDeadline(deps, 100, 0);
    fire?.();
    expect(passed).toEqual(['a']);
  });

  it('keeps lengths apart, and orders a deadline that an injected clock dates earlier', () => {
    const time = fakeTime();
    const passed: string[] = [];
    new Entry('long', passed).startDeadline(time.deps, 200, 0);
    new Entry('short', passed).startDeadline(time.deps, 50, 0);
    new Entry('late', passed).startDeadline(time.deps, 100, 40);
    new Entry('early', passed).startDeadline(time.deps, 100, 0); // its clock read came later
    time.advance(300);
    expect(passed).toEqual(['short', 'early', 'late', 'long']);
  });

  it('a deadline started while others pass does not delay the ones already waiting', () => {
    const time = fakeTime();
    const passed: string[] = [];
    const later = new Entry('later', passed);
    class Starter extends Entry {
      override deadlinePassed(): void {
        super.deadlinePassed();
        later.startDeadline(time.deps, 100, time.deps.now());
      }
    }
    new Starter('first', passed).startDeadline(time.deps, 100, 0);
    time.advance(50);
    new Entry('second', passed).startDeadline(time.deps, 100, 50);
    time.advance(50); // t = 100: first passes and starts `later` (due 200)
    expect(passed).toEqual(['first']);
    expect(time.timers()).toEqual([150]);
    time.advance(50);
    expect(passed).toEqual(['first', 'second']);
    time.advance(50);
    expect(passed).toEqual(['first', 'second', 'later']);
  });
});
