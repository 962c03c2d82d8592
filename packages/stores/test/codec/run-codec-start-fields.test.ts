import { describe, expect, it } from 'vitest';
import { runAgent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { RunCodec } from '@reins/stores';

// Issue 18 items 4 and 7 add `maxStepsAuto` and `inputCleaned` to `start`: keys the codec's
// presets do not know (the presets are part of the stored format and stay as they are).
describe('RunCodec and the start fields of auto steps and input cleaning', () => {
  it('stores and reads them back exactly', async () => {
    const model = scriptModel([JSON.stringify({ thought: 'done', final: 'ok' })]);
    const run = runAgent({
      query: '{{x}} 家里谁有过敏？另外这周晚饭怎么安排？',
      model,
      tools: [],
      limits: { maxSteps: 'auto' },
    });
    await run.result;
    const events: readonly RunEvent[] = run.events;
    const start = events[0];
    expect(start?.type === 'start' && start.maxStepsAuto?.chosen).toBe(6);
    expect(start?.type === 'start' && start.inputCleaned).toEqual({ markers: ['{{', '}}'] });
    const writer = new RunCodec();
    const reader = new RunCodec();
    const decoded = events.map((e, seq) => reader.decode(writer.encode(e), run.runId, seq));
    expect(decoded).toEqual(JSON.parse(JSON.stringify(events)));
  });
});
