import { describe, expect, it } from 'vitest';
import { runAgent, type Model, type ModelRequest } from 'reins';
import { collect, final, shape } from './helpers.js';

describe('streamed model text as progress events', () => {
  it('deltas become live progress steps of their step, before its reason event; the record keeps only reason/act/observe', async () => {
    let late: ModelRequest | undefined;
    const streaming: Model = {
      name: 'streaming',
      call: async (request) => {
        request.onDelta?.('{"thought":"t",');
        await Promise.resolve();
        request.onDelta?.('"final":"ok"}');
        late = request;
        return { ok: true, text: final('ok', 't'), usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const run = runAgent({ query: 'q', model: streaming, tools: [] });
    const events = await collect(run);
    expect(shape(events)).toEqual([
      'start',
      'step:progress',
      'step:progress',
      'step:reason',
      'message',
      'done',
    ]);
    expect(
      events
        .filter((e) => e.type === 'step' && e.phase === 'progress')
        .map((e) => (e as { text: string }).text),
    ).toEqual(['{"thought":"t",', '"final":"ok"}']);
    expect(events[1]).toMatchObject({ index: 1, source: 'model' });
    const record = await run.result;
    expect(record.steps.map((s) => s.phase)).toEqual(['reason']);
    late?.onDelta?.('after the end'); // ignored, no throw
    expect(run.events).toHaveLength(events.length);
  });
});
