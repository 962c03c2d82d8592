import { describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { PromptTexts, RunCodec, StoredEventError } from '@reins/stores';

const RUN = 'r-1';
const step = (seq: number, at: number, extra: Record<string, unknown> = {}) =>
  ({
    type: 'step',
    phase: 'act',
    index: 1,
    actId: `a${seq}`,
    tool: 'fridge_items',
    input: {},
    startedAt: at - 0.25,
    endedAt: at,
    durationMs: 0.25,
    ...extra,
    runId: RUN,
    seq,
    at,
  }) as unknown as RunEvent;

function roundTrip(events: RunEvent[]): { bodies: string[]; decoded: RunEvent[] } {
  const writer = new RunCodec();
  const bodies = events.map((e) => writer.encode(e));
  const reader = new RunCodec();
  return { bodies, decoded: bodies.map((b, seq) => reader.decode(b, RUN, seq)) };
}

describe('RunCodec', () => {
  it('gives back fractional-ms times as the identical doubles', () => {
    const times = [
      1796137877768,
      1796137877769.47,
      1796137877770.9307,
      0.1 + 0.2,
      5e-324,
      1.7976931348623157e308,
      1e21,
    ];
    const events = times.map((at, seq) => step(seq, at, { durationMs: (at - 0.25 - at) * -1 + 1e-9 }));
    const { decoded } = roundTrip(events);
    decoded.forEach((e, i) => {
      const original = events[i] as unknown as Record<string, number>;
      const back = e as unknown as Record<string, number>;
      for (const key of ['at', 'startedAt', 'endedAt', 'durationMs'])
        expect(Object.is(back[key], original[key])).toBe(true);
    });
  });

  it('stores a repeated event as what changed, without runId and seq, and versioned', () => {
    const { bodies, decoded } = roundTrip([step(0, 1796137877768), step(1, 1796137877769.47)]);
    const second = JSON.parse(bodies[1] ?? '') as Record<string, unknown>;
    expect(second['v']).toBe(1);
    expect(bodies[1]).not.toContain(RUN);
    expect(bodies[1]).not.toContain('fridge_items');
    expect((bodies[1] ?? '').length).toBeLessThan(JSON.stringify(decoded[1]).length / 2);
    expect(decoded[1]).toEqual(step(1, 1796137877769.47));
  });

  it('drops keys whose value is undefined, as JSON does', () => {
    const { decoded } = roundTrip([step(0, 1, { degraded: undefined })]);
    expect(Object.keys(decoded[0] ?? {})).not.toContain('degraded');
  });

  it('refuses a body of an unknown version, clearly', () => {
    const reader = new RunCodec();
    expect(() => reader.decode('{"v":2,"d":{}}', RUN, 0)).toThrow(StoredEventError);
    expect(() => reader.decode('{"v":2,"d":{}}', RUN, 0)).toThrow(
      /codec version 2; this reader \(without stored texts\) reads version 1 only/,
    );
    expect(() => new RunCodec(new PromptTexts()).decode('{"v":3,"d":{}}', RUN, 0)).toThrow(
      /codec version 3; this build reads versions 1 and 2 only/,
    );
    expect(() => reader.decode('{"d":{}}', RUN, 0)).toThrow(/codec version undefined/);
    expect(() => reader.decode('not json', RUN, 0)).toThrow(/not JSON/);
  });

  it('encodes an object of the caller again after the caller changed it (nothing memoised is kept for it)', () => {
    const input = { query: 'rice', tags: ['a', 'b', 'c', 'd'] };
    const events = [step(0, 1, { input }), step(1, 2, { input })];
    const writer = new RunCodec();
    const first = writer.encode(events[0] as RunEvent);
    input.query = 'noodles';
    input.tags.push('e');
    const second = writer.encode(events[1] as RunEvent);
    const reader = new RunCodec();
    reader.decode(first, RUN, 0);
    const decoded = reader.decode(second, RUN, 1) as unknown as { input: unknown };
    expect(decoded.input).toEqual({ query: 'noodles', tags: ['a', 'b', 'c', 'd', 'e'] });
  });

  it('takes events in seq order only (a programmer mistake otherwise)', () => {
    const writer = new RunCodec();
    expect(() => writer.encode(step(1, 1))).toThrow(RangeError);
    writer.encode(step(0, 1));
    expect(writer.count).toBe(1);
  });
});
