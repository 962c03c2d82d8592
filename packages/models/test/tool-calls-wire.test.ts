import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { anthropic, openAiCompatible } from '@reins/models';
import { defineTool, runAgent, type ModelRequest, type ReasonStep } from 'reins';
import { chunk, completion, fakeProvider, json, type Received } from './fake-provider.js';

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather for a city.',
  input: z.object({ city: z.string() }),
  output: z.object({ city: z.string(), celsius: z.number() }),
  readOnly: true,
  run: ({ city }) => ({ city, celsius: city === 'Beijing' ? 3 : 12 }),
});

const request = (): ModelRequest => ({
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'Weather in Beijing and Shanghai?' },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  signal: new AbortController().signal,
  step: 1,
  finalStep: false,
});

/** Writes an SSE body cut at awkward places (mid-line, mid-event), as real proxies do. */
function writeCut(res: ServerResponse, wire: string, cuts: number[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let from = 0;
  for (const cut of cuts.filter((c) => c < wire.length)) {
    res.write(wire.slice(from, cut));
    from = cut;
  }
  res.end(wire.slice(from));
}

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('OpenAI-compatible native tool calls', () => {
  /** A Chat Completions response with tool calls, as in the API reference. */
  const toolCallsCompletion = () => ({
    ...completion(''),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_abc',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Beijing"}' },
            },
            {
              id: 'call_def',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Shanghai"}' },
            },
          ],
          refusal: null,
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
  });

  it('sends tools as functions and reads several tool_calls from one reply', async () => {
    provider = await fakeProvider((_r, res) => json(res, 200, toolCallsCompletion()));
    const model = openAiCompatible({ model: 'gpt-4o-mini', baseURL: provider.baseURL });
    const result = await model.call(request());
    expect(result).toMatchObject({
      ok: true,
      text: '',
      toolCalls: [
        { id: 'call_abc', name: 'get_weather', arguments: '{"city":"Beijing"}' },
        { id: 'call_def', name: 'get_weather', arguments: '{"city":"Shanghai"}' },
      ],
    });
    expect(provider.received[0]?.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city.',
          parameters: request().tools[0]?.inputSchema,
        },
      },
    ]);
  });

  it('streams tool-call deltas split across chunks and writes; usage in the last chunk', async () => {
    provider = await fakeProvider((_r, res) => {
      const events = [
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Bei' } }] }),
        chunk({
          tool_calls: [
            { index: 0, function: { arguments: 'jing"}' } },
            { index: 1, id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"city":"Shanghai"}' } }] }),
        chunk({}, 'tool_calls'),
        { ...chunk({}), choices: [], usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 } },
      ];
      const wire = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
      writeCut(res, wire, [5, 120, 121, 333, 600, 601, 900]);
    });
    const model = openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true });
    expect(await model.call(request())).toEqual({
      ok: true,
      text: '',
      usage: { inputTokens: 50, outputTokens: 20 },
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: '{"city": "Beijing"}' },
        { id: 'call_2', name: 'get_weather', arguments: '{"city":"Shanghai"}' },
      ],
    });
  });

  // Found in review: some OpenAI-compatible servers number every parallel call 0. A new id at an
  // index already taken was joined to that call (`get_aget_b`, `{…}{…}`); it is a call of its own.
  it('parallel calls that all say index 0 are told apart by their ids', async () => {
    provider = await fakeProvider((_r, res) => {
      const events = [
        chunk({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'get_a', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_b', type: 'function', function: { name: 'get_b', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"y":2}' } }] }),
        chunk({}, 'tool_calls'),
      ];
      writeCut(res, `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`, []);
    });
    const result = await openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }).call(
      request(),
    );
    expect(result).toMatchObject({
      ok: true,
      toolCalls: [
        { id: 'call_a', name: 'get_a', arguments: '{"x":1}' },
        { id: 'call_b', name: 'get_b', arguments: '{"y":2}' },
      ],
    });
  });

  it('a tool-call index far out of range is a malformed stream, not a huge array', async () => {
    provider = await fakeProvider((_r, res) => {
      const bad = chunk({ tool_calls: [{ index: 1e9, id: 'x', function: { name: 'get_weather' } }] });
      writeCut(res, `data: ${JSON.stringify(bad)}\n\ndata: [DONE]\n\n`, []);
    });
    const result = await openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }).call(
      request(),
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('runs both calls in one step, sends the results back as tool messages, and no tools on the last step', async () => {
    let calls = 0;
    provider = await fakeProvider((_r, res) =>
      json(
        res,
        200,
        calls++ === 0 ? toolCallsCompletion() : completion('{"thought":"t","final":"3 and 12"}'),
      ),
    );
    const model = openAiCompatible({ model: 'm', baseURL: provider.baseURL });
    const run = runAgent({ query: 'Weather?', model, tools: [weather], limits: { maxSteps: 2 } });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'success', final_answer: '3 and 12' });
    expect(record.steps.filter((s) => s.phase === 'observe')).toHaveLength(2);
    const reason = run.events.find((e) => e.type === 'step' && e.phase === 'reason') as ReasonStep;
    expect(reason.parse).toEqual({ ok: true, via: 'native' });

    // Step 2 is the last: no tools, and the history as plain text (no tool messages).
    const last = provider.received[1] as Received;
    expect(last.body.tools).toBeUndefined();
    const roles = (last.body.messages as { role: string }[]).map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('with tools offered on the next step, the history carries tool_calls and tool results by id', async () => {
    let calls = 0;
    provider = await fakeProvider((_r, res) =>
      json(res, 200, calls++ === 0 ? toolCallsCompletion() : completion('{"thought":"t","final":"done"}')),
    );
    const model = openAiCompatible({ model: 'm', baseURL: provider.baseURL });
    await runAgent({ query: 'Weather?', model, tools: [weather], limits: { maxSteps: 3 } }).result;
    const messages = provider.received[1]?.body.messages as Record<string, unknown>[];
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_abc',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Beijing"}' },
        },
        {
          id: 'call_def',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Shanghai"}' },
        },
      ],
    });
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc' });
    expect(messages[3]?.content).toContain('"celsius":3');
    expect(messages[4]).toMatchObject({ role: 'tool', tool_call_id: 'call_def' });
    expect(messages[4]?.content).toContain('"celsius":12');
    expect(provider.received[1]?.body.tools).toHaveLength(1);
  });

  it("toolCalling: 'text' sends no tools (the model writes JSON decisions)", async () => {
    provider = await fakeProvider((_r, res) => json(res, 200, completion('{"final":"x"}')));
    await openAiCompatible({ model: 'm', baseURL: provider.baseURL, toolCalling: 'text' }).call(request());
    expect(provider.received[0]?.body.tools).toBeUndefined();
  });
});

describe('Anthropic native tool calls', () => {
  const baseURL = () => (provider?.baseURL ?? '').replace('/v1', '');
  /** A Messages API response with text and two tool_use blocks, as in the API reference. */
  const toolUseMessage = () => ({
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'text', text: 'I will check both cities.' },
      { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Beijing' } },
      { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: { city: 'Shanghai' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 60, output_tokens: 40 },
  });
  const textMessage = (text: string) => ({
    ...toolUseMessage(),
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
  });

  it('sends tools with input_schema and reads tool_use blocks (text is the thought)', async () => {
    provider = await fakeProvider((_r, res) => json(res, 200, toolUseMessage()));
    const result = await anthropic({ model: 'c', apiKey: 'k', baseURL: baseURL() }).call(request());
    expect(result).toEqual({
      ok: true,
      text: 'I will check both cities.',
      usage: { inputTokens: 60, outputTokens: 40 },
      toolCalls: [
        { id: 'toolu_01', name: 'get_weather', arguments: { city: 'Beijing' } },
        { id: 'toolu_02', name: 'get_weather', arguments: { city: 'Shanghai' } },
      ],
    });
    expect(provider.received[0]?.body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city.',
        input_schema: request().tools[0]?.inputSchema,
      },
    ]);
  });

  // Found in review: an Anthropic-compatible gateway that sends a tool_use's input whole in its
  // content_block_start (and no input_json_delta) had it dropped: the tool ran with `{}`.
  it('a tool_use whose input comes whole in content_block_start keeps it', async () => {
    provider = await fakeProvider((_r, res) => {
      const events: [string, unknown][] = [
        [
          'message_start',
          { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
        ],
        [
          'content_block_start',
          {
            type: 'content_block_start',
            index: 0,
            content_block: {
              type: 'tool_use',
              id: 'toolu_09',
              name: 'get_weather',
              input: { city: 'Xi’an' },
            },
          },
        ],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'message_delta',
          { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
        ],
        ['message_stop', { type: 'message_stop' }],
      ];
      writeCut(
        res,
        events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(''),
        [],
      );
    });
    const result = await anthropic({ model: 'c', apiKey: 'k', baseURL: baseURL(), stream: true }).call(
      request(),
    );
    expect(result).toMatchObject({
      ok: true,
      toolCalls: [{ id: 'toolu_09', name: 'get_weather', arguments: { city: 'Xi’an' } }],
    });
  });

  it('streams input_json_delta fragments split across chunks into each tool_use', async () => {
    provider = await fakeProvider((_r, res) => {
      const events: [string, unknown][] = [
        [
          'message_start',
          {
            type: 'message_start',
            message: { ...toolUseMessage(), content: [], usage: { input_tokens: 60, output_tokens: 1 } },
          },
        ],
        [
          'content_block_start',
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        ],
        [
          'content_block_delta',
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
        ],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'content_block_start',
          {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {} },
          },
        ],
        [
          'content_block_delta',
          { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
        ],
        [
          'content_block_delta',
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '{"city": "Bei' },
          },
        ],
        [
          'content_block_delta',
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: 'jing"}' },
          },
        ],
        ['content_block_stop', { type: 'content_block_stop', index: 1 }],
        [
          'content_block_start',
          {
            type: 'content_block_start',
            index: 2,
            content_block: { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: {} },
          },
        ],
        [
          'content_block_delta',
          {
            type: 'content_block_delta',
            index: 2,
            delta: { type: 'input_json_delta', partial_json: '{"city":"Shanghai"}' },
          },
        ],
        ['content_block_stop', { type: 'content_block_stop', index: 2 }],
        [
          'message_delta',
          {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use', stop_sequence: null },
            usage: { output_tokens: 44 },
          },
        ],
        ['message_stop', { type: 'message_stop' }],
      ];
      const wire = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
      writeCut(res, wire, [10, 400, 401, 402, 900, 1300]);
    });
    const deltas: string[] = [];
    const model = anthropic({
      model: 'c',
      apiKey: 'k',
      baseURL: baseURL(),
      stream: true,
      onDelta: (d) => deltas.push(d),
    });
    expect(await model.call(request())).toEqual({
      ok: true,
      text: 'Checking.',
      usage: { inputTokens: 60, outputTokens: 44 },
      toolCalls: [
        { id: 'toolu_01', name: 'get_weather', arguments: '{"city": "Beijing"}' },
        { id: 'toolu_02', name: 'get_weather', arguments: '{"city":"Shanghai"}' },
      ],
    });
    expect(deltas).toEqual(['Checking.']);
  });

  it('sends the history as tool_use / tool_result blocks, results of one turn in one user message', async () => {
    let calls = 0;
    provider = await fakeProvider((_r, res) =>
      json(res, 200, calls++ === 0 ? toolUseMessage() : textMessage('{"thought":"t","final":"3 and 12"}')),
    );
    const model = anthropic({ model: 'c', apiKey: 'k', baseURL: baseURL() });
    const record = await runAgent({ query: 'Weather?', model, tools: [weather], limits: { maxSteps: 3 } })
      .result;
    expect(record.final_answer).toBe('3 and 12');
    const messages = provider.received[1]?.body.messages as { role: string; content: unknown }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]?.content).toEqual([
      { type: 'text', text: 'I will check both cities.' },
      { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Beijing' } },
      { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: { city: 'Shanghai' } },
    ]);
    const results = messages[2]?.content as { type: string; tool_use_id: string; content: string }[];
    expect(results.map((b) => [b.type, b.tool_use_id])).toEqual([
      ['tool_result', 'toolu_01'],
      ['tool_result', 'toolu_02'],
    ]);
    expect(results[0]?.content).toContain('"celsius":3');
  });

  it('on the last step: no tools and no tool blocks (the API refuses tool blocks without tools)', async () => {
    let calls = 0;
    provider = await fakeProvider((_r, res) =>
      json(res, 200, calls++ === 0 ? toolUseMessage() : textMessage('{"thought":"t","final":"ok"}')),
    );
    const model = anthropic({ model: 'c', apiKey: 'k', baseURL: baseURL() });
    await runAgent({ query: 'Weather?', model, tools: [weather], limits: { maxSteps: 2 } }).result;
    const body = provider.received[1]?.body as { tools?: unknown; messages: { content: unknown }[] };
    expect(body.tools).toBeUndefined();
    for (const m of body.messages) expect(typeof m.content).toBe('string');
  });
});
