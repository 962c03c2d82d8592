import { describe, expect, it } from 'vitest';
import type { ActStep, RunEvent } from '../src/events.js';
import { ActionKeys, actionHash } from '../src/loop/action-keys.js';

/** A run's log of act events only: `act(step, tool, input)` appends one and returns it. */
function fakeLog() {
  const events: RunEvent[] = [];
  const act = (index: number, tool: string, input: unknown): ActStep => {
    const event = {
      type: 'step',
      phase: 'act',
      index,
      actId: `a${events.length}`,
      tool,
      input,
      startedAt: 0,
      endedAt: 0,
      runId: 'r',
      seq: events.length,
      at: 0,
    } as ActStep;
    events.push(event);
    return event;
  };
  return { events, act };
}

/** Two inputs of `tool` that differ and hash alike (found by search: 30 bits). */
function collidingInputs(tool: string): [unknown, unknown] {
  const seen = new Map<number, number>();
  for (let n = 0; ; n++) {
    const hash = actionHash(tool, { n });
    const earlier = seen.get(hash);
    if (earlier !== undefined) return [{ n: earlier }, { n }];
    seen.set(hash, n);
  }
}

const get = (keys: ActionKeys, tool: string, input: unknown) =>
  keys.get(tool, input, actionHash(tool, input));
const add = (keys: ActionKeys, act: ActStep) => keys.add(actionHash(act.tool, act.input), act);

describe('ActionKeys (the repeated-action guard’s memory)', () => {
  it('answers the step that first made each action: the first, later ones, unknown keys', () => {
    const log = fakeLog();
    const keys = new ActionKeys(log);
    expect(get(keys, 'add', { a: 1 })).toBeUndefined();
    for (let step = 1; step <= 20; step++) {
      const input = { a: step, b: [step] };
      add(keys, log.act(step, 'add', input));
    }
    for (let step = 1; step <= 20; step++) expect(get(keys, 'add', { b: [step], a: step })).toBe(step); // key order ignored
    expect(get(keys, 'add', { a: 21, b: [21] })).toBeUndefined();
    expect(get(keys, 'mul', { a: 1, b: [1] })).toBeUndefined();
    expect(get(keys, '', undefined)).toBeUndefined();
  });

  it('two actions whose hashes collide are told apart by their act events, first or later', () => {
    const [first, second] = collidingInputs('lookup');
    expect(actionHash('lookup', first)).toBe(actionHash('lookup', second));
    for (const before of [0, 2]) {
      const log = fakeLog();
      const keys = new ActionKeys(log);
      for (let i = 0; i < before; i++) add(keys, log.act(1, 'other', i));
      add(keys, log.act(2, 'lookup', first));
      expect(get(keys, 'lookup', second)).toBeUndefined();
      add(keys, log.act(3, 'lookup', second));
      expect(get(keys, 'lookup', first)).toBe(2);
      expect(get(keys, 'lookup', second)).toBe(3);
    }
  });

  it('an act the guard was not told of (a refused call) is no earlier action; a rebuilt log (JSON) still confirms', () => {
    const log = fakeLog();
    const keys = new ActionKeys(log);
    log.act(1, 'add', { a: 1 }); // refused: never added
    expect(get(keys, 'add', { a: 1 })).toBeUndefined();
    add(keys, log.act(2, 'add', { a: 2 }));
    const rebuilt = { events: JSON.parse(JSON.stringify(log.events)) as RunEvent[] };
    const again = new ActionKeys(rebuilt);
    add(again, rebuilt.events[1] as ActStep);
    expect(get(again, 'add', { a: 2 })).toBe(2);
  });
});
