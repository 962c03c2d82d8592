import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { RunCodec } from '@reins/stores';

/**
 * Over generated runs of the real event shapes (steps, messages, a `resume`, unknown types)
 * with arbitrary JSON in them: decoding what was encoded gives each event's JSON back exactly
 * — `toStrictEqual` to `JSON.parse(JSON.stringify(event))` and the same JSON text (key order
 * included). What JSON drops is dropped: keys whose value is `undefined`; `-0` becomes 0,
 * non-finite numbers null.
 */
const RUN_ID = '5f0c2a8e-1d1b-4c55-9a43-3f0f1f2b9e01';

// Small pools make later events repeat, grow, shrink and drop what earlier ones had.
const word = fc.constantFrom(
  '番茄炒蛋',
  'fridge_items',
  'ok',
  '~tilde',
  '',
  'tool:t1',
  '鸡蛋 🥚',
  '[1,2]',
  '{"a":1}',
);
const number = fc.oneof(
  fc.constantFrom(0, 1, -1, 12, 1796137877769.47, 0.1 + 0.2, 5e-324, 1e21, -2.5),
  fc.double(),
  fc.integer(),
);
const key = fc.constantFrom(
  'a',
  'b',
  'items',
  '~x',
  '~~',
  '12',
  '0',
  'v',
  'd',
  'name',
  'durationMs',
  '__proto__',
);
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    word,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    fc.array(fc.record({ name: word, n: number }), { minLength: 2, maxLength: 4 }),
  ),
})).value;

const time = fc.oneof(fc.double({ min: 1.7e12, max: 1.8e12, noNaN: true }), number);
const observation = fc.record(
  {
    actId: word,
    tool: fc.constantFrom('t1', 't2'),
    status: fc.constantFrom('ok', 'error'),
    result: json,
    source: fc.oneof(fc.constantFrom('tool:t1', 'tool:t2', 'cache'), json),
    durationMs: number,
  },
  { requiredKeys: ['tool'] },
);
const event = fc.record(
  {
    type: fc.constantFrom(
      'start',
      'step',
      'message',
      'done',
      'resume',
      'approval',
      'clarify',
      'error',
      'novel',
    ),
    phase: fc.constantFrom('reason', 'act', 'observe', 'progress', 'plan'),
    source: fc.constantFrom('node', 'model', 'tool'),
    tool: fc.constantFrom('t1', 't2'),
    index: fc.nat(5),
    startedAt: time,
    endedAt: time,
    durationMs: number,
    expiresAt: time,
    raw: fc.oneof(
      word,
      json.map((v) => JSON.stringify(v) ?? ''),
    ),
    decision: json,
    observation,
    outcome: json,
    data: json,
    degraded: fc.constant(undefined),
    extra: json,
  },
  { requiredKeys: ['type'] },
);
const run = fc.array(fc.tuple(event, time, fc.constantFrom('end', 'start', 'middle')), {
  minLength: 1,
  maxLength: 14,
});

/** The event as a log writes it: its fields, then `runId`, `seq`, `at` (or elsewhere, to test key order). */
function stamp(fields: Record<string, unknown>, seq: number, at: unknown, placement: string): RunEvent {
  const ids = { runId: RUN_ID, seq };
  if (placement === 'start') return { ...ids, at, ...fields } as unknown as RunEvent;
  if (placement === 'middle') return { at, ...fields, ...ids } as unknown as RunEvent;
  return { ...fields, ...ids, at } as unknown as RunEvent;
}

describe('RunCodec: decode(encode(run)) is the run (property)', () => {
  it('gives back every event exactly, key order included, from a fresh decoder', () => {
    fc.assert(
      fc.property(run, (generated) => {
        const events = generated.map(([fields, at, placement], seq) => stamp(fields, seq, at, placement));
        const writer = new RunCodec();
        const bodies = events.map((e) => writer.encode(e));
        const reader = new RunCodec();
        const decoded = bodies.map((body, seq) => reader.decode(body, RUN_ID, seq));
        const expected = JSON.parse(JSON.stringify(events)) as unknown;
        expect(decoded).toStrictEqual(expected);
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(events));
        for (const body of bodies) expect(JSON.parse(body)).toMatchObject({ v: 1 });
      }),
      { numRuns: 400 },
    );
  });

  it('a writer that re-read the first events (a restart) writes the rest as the first writer would', () => {
    fc.assert(
      fc.property(run, fc.nat(), (generated, cut) => {
        const events = generated.map(([fields, at, placement], seq) => stamp(fields, seq, at, placement));
        const split = cut % events.length;
        const first = new RunCodec();
        const bodies = events.map((e) => first.encode(e));
        const restarted = new RunCodec();
        bodies.slice(0, split).forEach((body, seq) => restarted.decode(body, RUN_ID, seq));
        expect(events.slice(split).map((e) => restarted.encode(e))).toEqual(bodies.slice(split));
      }),
      { numRuns: 200 },
    );
  });
});
