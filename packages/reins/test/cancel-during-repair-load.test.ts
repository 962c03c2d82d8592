import { describe, expect, it } from 'vitest';
import { runAgent, type Model, type ModelResult } from 'reins';

// The first run of a process: the repair parsers (JSON5, jsonrepair) are still loading when the
// model's reply, which needs the one repair, arrives. The run is cancelled while it waits for them.
// It went on when they had loaded and ended success (an action was even logged after the cancel).
describe('a cancel while a reply waits for the repair parsers', () => {
  it('ends the run cancelled, not success', async () => {
    let cancel = (): void => {};
    const model: Model = {
      name: 'needs-repair',
      call: () => {
        const reply: Promise<ModelResult> = Promise.resolve({
          ok: true,
          text: "{thought: 'ok', final: 'the answer',}", // JSON5: needs the repair
          usage: { inputTokens: 1, outputTokens: 1 },
        });
        // Cancelled right after the loop has taken the reply (one microtask later).
        void reply.then(() => queueMicrotask(() => cancel()));
        return reply;
      },
    };
    const run = runAgent({ query: 'q', model, tools: [] });
    cancel = run.cancel;
    const record = await run.result;
    expect(record.status).toBe('cancelled');
  });
});
