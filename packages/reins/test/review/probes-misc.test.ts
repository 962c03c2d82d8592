import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ToolError,
  createToolPolicies,
  defineTool,
  executeAction,
  runAgent,
  type ModelRequest,
  type ObserveStep,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { openAiCompatible } from '@reins/models';
import { actEnv, act, final } from '../helpers.js';

const envFor = actEnv;

const sse = (chunks: unknown[]) => {
  const text = chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('');
  return async () => ({
    status: 200,
    header: () => null,
    body: (async function* () {
      yield new TextEncoder().encode(text);
    })(),
    text: async () => text,
  });
};
const request = (): ModelRequest => ({
  messages: [{ role: 'user', content: 'q' }],
  tools: [],
  signal: new AbortController().signal,
  step: 1,
  finalStep: false,
});

describe('review probes: misc', () => {
  it('M1: the sandbox honours maxLength of a nullable (or optional-union) string', async () => {
    const note = defineTool({
      name: 'note',
      description: 'n',
      readOnly: true,
      input: z.object({ text: z.string().max(500).nullable() }),
      output: z.object({ n: z.number() }),
      run: ({ text }) => ({ n: text?.length ?? 0 }),
    });
    const o = await executeAction(
      { actId: 'a1', tool: 'note', input: { text: 'x'.repeat(300) } },
      envFor([note]),
    );
    expect(o.error).toBeUndefined();
    expect(o.result).toEqual({ n: 300 });
  });

  it('M2: a fallback that also fails does not make the final answer say a fallback answered', async () => {
    const primary = defineTool({
      name: 'ocr',
      description: 'o',
      readOnly: true,
      input: z.object({ url: z.string() }),
      output: z.object({ text: z.string() }),
      policy: { retries: 0 },
      fallback: { tool: 'ocr_lite', lost: 'handwriting' },
      run: () => {
        throw new ToolError('SERVICE_UNAVAILABLE', 'ocr down');
      },
    });
    const backup = defineTool({
      name: 'ocr_lite',
      description: 'o2',
      readOnly: true,
      input: z.object({ url: z.string() }),
      output: z.object({ text: z.string() }),
      policy: { retries: 0 },
      run: () => {
        throw new ToolError('SERVICE_UNAVAILABLE', 'lite down too');
      },
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('ocr', { url: 'u' }), final('could not read it')]),
      tools: [primary, backup],
      policies: createToolPolicies(),
    });
    const record = await run.result;
    const obs = (run.events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep)
      .observation;
    expect(obs.status).toBe('error');
    expect(record.degraded).toBeUndefined(); // no fallback answered; nothing "degraded" was delivered
  });

  it('M3: OpenAI stream whose tool-call fragments carry no index keeps the arguments', async () => {
    const model = openAiCompatible({
      model: 'm',
      stream: true,
      post: sse([
        {
          choices: [
            {
              delta: {
                tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '' } }],
              },
            },
          ],
        },
        { choices: [{ delta: { tool_calls: [{ function: { arguments: '{"a":1,' } }] } }] },
        { choices: [{ delta: { tool_calls: [{ function: { arguments: '"b":2}' } }] } }] },
        '[DONE]',
      ]) as never,
    });
    const result = await model.call(request());
    expect(result.ok && result.toolCalls).toEqual([{ id: 'c1', name: 'add', arguments: '{"a":1,"b":2}' }]);
  });
});
