import { afterEach, describe, expect, it } from 'vitest';
import { anthropic } from '@reins/models';
import { runAgent, type ModelRequest } from 'reins';
import { fakeProvider, json, waitFor } from './fake-provider.js';

const request = (signal = new AbortController().signal): ModelRequest => ({
  messages: [
    { role: 'system', content: 'Reply with one JSON object.' },
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: '{"action":"w","input":{}}' },
    { role: 'user', content: 'Observation: sunny' },
    { role: 'user', content: '(a second user turn in a row)' },
  ],
  tools: [],
  signal,
  step: 2,
  finalStep: false,
});

/** A Messages API response, as in Anthropic's API reference. */
const message = (text: string) => ({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 30, output_tokens: 9 },
});

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('Anthropic adapter on the wire', () => {
  it('sends system apart, alternating turns, the version header and max_tokens; reads text and usage', async () => {
    provider = await fakeProvider((_r, res) => json(res, 200, message('{"thought":"t","final":"sunny"}')));
    const model = anthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-ant',
      baseURL: provider.baseURL.replace('/v1', ''),
    });
    expect(await model.call(request())).toEqual({
      ok: true,
      text: '{"thought":"t","final":"sunny"}',
      usage: { inputTokens: 30, outputTokens: 9 },
    });
    const [sent] = provider.received;
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe('sk-ant');
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Reply with one JSON object.',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '{"action":"w","input":{}}' },
        { role: 'user', content: 'Observation: sunny\n\n(a second user turn in a row)' },
      ],
    });
  });

  it('streams text deltas and usage from message_start / message_delta, ignoring pings', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events: [string, unknown][] = [
        [
          'message_start',
          {
            type: 'message_start',
            message: { ...message(''), content: [], usage: { input_tokens: 25, output_tokens: 1 } },
          },
        ],
        [
          'content_block_start',
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        ],
        ['ping', { type: 'ping' }],
        [
          'content_block_delta',
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '{"thought":"t",' } },
        ],
        [
          'content_block_delta',
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '"final":"ok"}' } },
        ],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'message_delta',
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 15 },
          },
        ],
        ['message_stop', { type: 'message_stop' }],
      ];
      res.end(events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
    });
    const deltas: string[] = [];
    const model = anthropic({
      model: 'm',
      apiKey: 'k',
      baseURL: provider.baseURL,
      stream: true,
      onDelta: (d) => deltas.push(d),
    });
    expect(await model.call(request())).toEqual({
      ok: true,
      text: '{"thought":"t","final":"ok"}',
      usage: { inputTokens: 25, outputTokens: 15 },
    });
    expect(deltas).toEqual(['{"thought":"t",', '"final":"ok"}']);
  });

  it('529 overloaded and an overloaded error mid-stream are SERVICE_UNAVAILABLE', async () => {
    provider = await fakeProvider((r, res) => {
      if (r.body.stream !== true)
        return json(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
      );
    });
    const plain = await anthropic({ model: 'm', apiKey: 'k', baseURL: provider.baseURL }).call(request());
    expect(plain).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'HTTP 529: Overloaded' },
    });
    const streamed = await anthropic({
      model: 'm',
      apiKey: 'k',
      baseURL: provider.baseURL,
      stream: true,
    }).call(request());
    expect(streamed).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'overloaded_error: Overloaded' },
    });
  });

  // Found in review: a not_found_error mid-stream (a model name the gateway does not know) was
  // INVALID_PARAMETER, where the same answer before the stream (HTTP 404) is NOT_FOUND.
  it('a not_found_error mid-stream is NOT_FOUND, as a 404 is', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'model: m' } })}\n\n`,
      );
    });
    const streamed = await anthropic({
      model: 'm',
      apiKey: 'k',
      baseURL: provider.baseURL,
      stream: true,
    }).call(request());
    expect(streamed).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('a cancelled run aborts the request and closes the socket', async () => {
    provider = await fakeProvider(() => {
      /* never answers */
    });
    const run = runAgent({
      query: 'q',
      model: anthropic({ model: 'm', apiKey: 'k', baseURL: provider.baseURL }),
      tools: [],
    });
    await waitFor(() => provider?.received.length === 1);
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
    await waitFor(() => provider?.openConnections() === 0);
  });
});
