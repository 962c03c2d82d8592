import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/events.js';
import { runStartOf } from '../src/loop/run-ending.js';

const event = (type: string, at: number) => ({ type, at }) as unknown as RunEvent;

describe('runStartOf (when a run started, for its done event’s duration)', () => {
  it('is the start event’s time, first in the log or not (a rebuilt history may begin otherwise)', () => {
    expect(runStartOf([event('start', 10), event('step', 20)])).toBe(10);
    expect(runStartOf([event('step', 5), event('start', 10), event('step', 20)])).toBe(10);
  });

  it('without a start event: the first event’s time, else 0', () => {
    expect(runStartOf([event('step', 5), event('step', 7)])).toBe(5);
    expect(runStartOf([])).toBe(0);
  });
});
