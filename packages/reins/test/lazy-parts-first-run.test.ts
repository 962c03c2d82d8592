import { describe, expect, it } from 'vitest';
import { runAgent } from 'reins';
import { scriptModel } from 'reins/testing';

// The first run of this file starts with nothing loaded (module state is per test file): its
// zero-latency model answers before the repair parsers have loaded, and the loop waits for them.
describe('the first run of a process needs no preloading', () => {
  it('a reply that needs the one repair is repaired in a run', async () => {
    const run = runAgent({
      query: 'q',
      model: scriptModel(["{'thought': 'single quotes', 'final': 'repaired in a run'}"]),
      tools: [],
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('repaired in a run');
    expect(record.steps[0]?.detail).toMatchObject({ parse: { via: 'repaired' } });
  });
});
