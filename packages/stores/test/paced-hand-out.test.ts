import { describe, expect, it } from 'vitest';
import { setImmediate } from 'node:timers';
import { handEachPaced, handOutPaced, type Pace } from '../src/paced-hand-out.js';

/** A clock that moves `stepMs` at every reading. */
const stepping = (stepMs: number) => {
  let t = 0;
  return () => (t += stepMs);
};

/** Waiters that each resume (an awaited promise), log themselves, and go on to a second await. */
function waiters(count: number, log: string[]) {
  return Array.from({ length: count }, (_, i) => {
    let resolve = (): void => undefined;
    const resumed = new Promise<void>((r) => (resolve = r)).then(async () => {
      log.push(`resumed ${i}`);
      await null; // its continuation goes on past a microtask before the next is handed
      log.push(`went on ${i}`);
    });
    return { resolve, resumed };
  });
}

/** Logs `turn` at the start of each following turn of the event loop, until stopped. */
function turnMarker(log: string[]) {
  let on = true;
  const mark = (): void => {
    if (!on) return;
    log.push('turn');
    setImmediate(mark);
  };
  setImmediate(mark);
  return () => (on = false);
}

describe('handOutPaced', () => {
  it('resumes each waiter to its next wait before handing the next one', async () => {
    const log: string[] = [];
    const list = waiters(3, log);
    const still: Pace = { budgetMs: 2, wave: 16, now: () => 0 };
    await handEachPaced(list, (w) => w.resolve(), still);
    await Promise.all(list.map((w) => w.resumed));
    expect(log).toEqual(['resumed 0', 'went on 0', 'resumed 1', 'went on 1', 'resumed 2', 'went on 2']);
  });

  it('a turn whose budget is spent hands out no more: the loop turns between waiters', async () => {
    const log: string[] = [];
    const list = waiters(4, log);
    const stop = turnMarker(log);
    // Every reading 5 ms on: each turn's budget (2 ms) is gone after its first waiter.
    await handEachPaced(list, (w) => w.resolve(), { budgetMs: 2, wave: 16, now: stepping(5) });
    stop();
    const resumed = log.filter((line) => line.startsWith('resumed') || line === 'turn');
    // Between two resumed waiters there is a turn of the loop.
    for (let i = 1; i < resumed.length; i++)
      if (resumed[i]?.startsWith('resumed')) expect(resumed[i - 1]).toBe('turn');
    expect(resumed.filter((line) => line.startsWith('resumed'))).toHaveLength(4);
  });

  it('a turn within its budget hands out up to a wave, then the loop turns', async () => {
    const log: string[] = [];
    const list = waiters(10, log);
    const stop = turnMarker(log);
    await handEachPaced(list, (w) => w.resolve(), { budgetMs: 2, wave: 4, now: () => 0 });
    stop();
    // The first at once (before the marker's first turn), then waves of four, a turn between two.
    const shape = log
      .filter((line) => !line.startsWith('went on'))
      .map((line) => (line === 'turn' ? '|' : 'r'))
      .join('')
      .replace(/\|+/g, '|');
    expect(shape).toBe('r|rrrr|rrrr|r');
  });

  it('never asks a source for more once it said it had none', async () => {
    let calls = 0;
    await handOutPaced(() => ++calls < 3, { budgetMs: 2, wave: 16, now: () => 0 });
    expect(calls).toBe(3);
    let once = 0;
    await handOutPaced(() => (once++, false));
    expect(once).toBe(1);
    await handEachPaced([], () => {
      throw new Error('nothing to hand');
    });
  });
});

describe('handOutPaced, a source that throws', () => {
  it('strands no waiter after it, and rejects with the first error once all are handed', async () => {
    const handed: number[] = [];
    const still: Pace = { budgetMs: 2, wave: 2, now: () => 0 };
    const items = [0, 1, 2, 3, 4];
    const out = handEachPaced(
      items,
      (i) => {
        handed.push(i);
        if (i === 1 || i === 2) throw new Error(`bad ${i}`); // the second is the last of a wave
      },
      still,
    );
    await expect(out).rejects.toThrow('bad 1');
    expect(handed).toEqual([0, 1, 2, 3, 4]);
  });

  it('a throw at the last one still ends the hand-out', async () => {
    const out = handEachPaced([0], () => {
      throw new Error('only one');
    });
    await expect(out).rejects.toThrow('only one');
  });
});
