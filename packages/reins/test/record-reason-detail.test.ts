import { describe, expect, it } from 'vitest';
import { runAgent, scriptModel } from '../src/index.js';
import { countingAdd } from './helpers.js';

const add = countingAdd().tool;

describe("the record's reason steps", () => {
  it('a text step: every key in its place, and none for native calls or a route', async () => {
    const model = scriptModel(['{"thought":"sum","action":"add","input":{"a":1,"b":2}}', '{"final":"3"}']);
    const record = await runAgent({ query: 'add', model, tools: [add] }).result;
    const reason = record.steps[0];
    expect(reason?.phase).toBe('reason');
    expect(Object.keys(reason?.detail ?? {})).toEqual([
      'thought',
      'decision',
      'parse',
      'model',
      'raw',
      'tools_offered',
      'usage',
      'prompt',
    ]);
    expect(reason?.detail).toMatchObject({
      thought: 'sum',
      decision: { kind: 'action', action: 'add', input: { a: 1, b: 2 } },
      parse: { ok: true, via: 'clean' },
      model: 'script',
      raw: '{"thought":"sum","action":"add","input":{"a":1,"b":2}}',
      tools_offered: true,
    });
    expect(reason?.detail.prompt).toBeDefined();
  });

  it('a step of native calls keeps them, before the prompt', async () => {
    const model = scriptModel([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, '{"final":"3"}']);
    const record = await runAgent({ query: 'add', model, tools: [add] }).result;
    const detail = record.steps[0]?.detail ?? {};
    expect(Object.keys(detail)).toEqual([
      'thought',
      'decision',
      'parse',
      'model',
      'raw',
      'tools_offered',
      'usage',
      'tool_calls',
      'prompt',
    ]);
    expect(detail['tool_calls']).toMatchObject([{ name: 'add', arguments: { a: 1, b: 2 } }]);
  });
});
