import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAnswer, runAgent, type DoneEvent, type MessageEvent } from 'reins';
import { scriptModel } from 'reins/testing';

// The first run of this file starts with the repair parsers not loaded (module state is per test
// file): a run with an answer format waits for them before it ends, even on a question.
describe('clock readings of a first run', () => {
  it('a run that waited for the repair parsers after its reasoning is done when it ends', async () => {
    let reads = 0;
    const now = (): number => 1_000 + 10 * ++reads;
    const answer = defineAnswer({ schema: z.object({ reply: z.string() }), text: (data) => data.reply });
    const run = runAgent({
      query: 'q',
      model: scriptModel(['{"thought":"unsure","ask":"Which day?"}']),
      tools: [],
      answer,
      deps: { now },
    });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'success', intent: 'ask', final_answer: 'Which day?' });
    const message = run.events.find((e): e is MessageEvent => e.type === 'message');
    const done = run.events.find((e): e is DoneEvent => e.type === 'done');
    // The question is said when the reasoning ended; `done` after the wait, on a reading of its own.
    expect(done?.at).toBeGreaterThan(message?.at ?? Number.POSITIVE_INFINITY);
    expect(done?.at).toBe(1_000 + 10 * reads);
  });
});
