import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineAnswer,
  runAgent,
  type DoneEvent,
  type MessageEvent,
  type ReasonStep,
  type RunEvent,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { countingAdd } from './helpers.js';

/** A clock that moves 10 ms at every reading and counts them. */
function steppingClock() {
  const clock = { reads: 0, now: (): number => 1_000 + 10 * ++clock.reads };
  return clock;
}

const REPLIES = [
  '{"thought":"one","action":"add","input":{"a":1,"b":2}}',
  '{"thought":"two","action":"add","input":{"a":3,"b":4}}',
  '{"thought":"done","final":"10"}',
];

function ending(events: readonly RunEvent[]) {
  const reasons = events.filter((e): e is ReasonStep => e.type === 'step' && e.phase === 'reason');
  const message = events.find((e): e is MessageEvent => e.type === 'message');
  const done = events.find((e): e is DoneEvent => e.type === 'done');
  if (message === undefined || done === undefined) throw new Error('the run did not end');
  return { lastReason: reasons.at(-1), message, done, start: events[0] };
}

describe('clock readings of a run', () => {
  it('a plain answer is said and the run done when its reasoning ended: one reading per boundary', async () => {
    const clock = steppingClock();
    const run = runAgent({
      query: 'q',
      model: scriptModel(REPLIES),
      tools: [countingAdd().tool],
      deps: { now: clock.now },
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    const { lastReason, message, done, start } = ending(run.events);
    // The start, three reasonings' ends, two tool calls' ends: six readings, none for the ending.
    expect(clock.reads).toBe(6);
    expect(message.at).toBe(lastReason?.endedAt);
    expect(done.at).toBe(lastReason?.endedAt);
    expect(done.durationMs).toBe(done.at - (start?.at ?? Number.NaN));
    expect(record.duration_ms).toBe(done.durationMs);
  });

  it('an answer the app shapes is said, and the run done, after that work: read anew', async () => {
    const clock = steppingClock();
    const answer = defineAnswer({ schema: z.object({ reply: z.string() }), text: (data) => data.reply });
    const run = runAgent({
      query: 'q',
      model: scriptModel(['{"thought":"done","final":{"reply":"hi"}}']),
      tools: [],
      answer,
      deps: { now: clock.now },
    });
    expect((await run.result).status).toBe('success');
    const { lastReason, message, done, start } = ending(run.events);
    expect(message.data).toEqual({ reply: 'hi' });
    expect(message.at).toBeGreaterThan(lastReason?.endedAt ?? Number.POSITIVE_INFINITY);
    expect(done.at).toBeGreaterThan(message.at);
    expect(done.durationMs).toBe(done.at - (start?.at ?? Number.NaN));
  });
});
