import { describe, expect, it } from 'vitest';
import { buildRunRecord, interruptedEnding, resolveLimits } from '../../src/index.js';

describe('interruptedEnding', () => {
  it('a run with no event yet: the ending starts its log from what it was asked, and reads as a record', () => {
    const limits = resolveLimits({});
    const ending = interruptedEnding('r1', [], limits, 1_000, {
      agent: 'shop',
      query: 'hello',
      conversationId: 'c1',
    });
    expect(ending.map((e) => [e.type, e.seq])).toEqual([
      ['start', 0],
      ['message', 1],
      ['done', 2],
    ]);
    expect(ending[0]).toMatchObject({
      agent: 'shop',
      query: 'hello',
      model: 'none',
      tools: [],
      conversationId: 'c1',
    });
    const record = buildRunRecord(ending);
    expect(record).toMatchObject({
      run_id: 'r1',
      status: 'stopped',
      stop_reason: 'interrupted',
      query: 'hello',
      model_steps: 0,
      duration_ms: 0,
    });
  });

  it('a run with no event and nothing said about what it was asked is a programmer error', () => {
    expect(() => interruptedEnding('r1', [], resolveLimits({}), 1_000)).toThrow('needs what it was asked');
  });
});
