import { afterEach, describe, expect, it } from 'vitest';
import { openAiCompatible } from '@reins/models';
import { runAgent, type ModelRequest } from 'reins';
import { chunk, completion, fakeProvider, json, waitFor } from './fake-provider.js';

const request = (signal = new AbortController().signal): ModelRequest => ({
  messages: [
    { role: 'system', content: 'Reply with one JSON object.' },
    { role: 'user', content: 'Weather in Beijing?' },
  ],
  tools: [],
  signal,
  step: 1,
  finalStep: false,
});

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('OpenAI-compatible adapter on the wire', () => {
  it('posts a Chat Completions request and reads text and usage', async () => {
    provider = await fakeProvider((_r, res) => json(res, 200, completion('{"thought":"t","final":"sunny"}')));
    const model = openAiCompatible({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: provider.baseURL });
    const result = await model.call(request());
    expect(result).toEqual({
      ok: true,
      text: '{"thought":"t","final":"sunny"}',
      usage: { inputTokens: 42, outputTokens: 7 },
    });
    const [sent] = provider.received;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: request().messages,
      response_format: { type: 'json_object' },
    });
  });

  it('drives a whole run', async () => {
    provider = await fakeProvider((_r, res) => json(res, 200, completion('{"thought":"t","final":"22 °C"}')));
    const model = openAiCompatible({ model: 'm', baseURL: provider.baseURL });
    const record = await runAgent({ query: 'q', model, tools: [] }).result;
    expect(record).toMatchObject({ status: 'success', final_answer: '22 °C', model: 'openai-compatible:m' });
    expect(provider.received[0]?.headers.authorization).toBeUndefined(); // no key: local servers
  });

  it('streams: deltas split across chunks and writes, usage in the last chunk, [DONE]', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: '{"thought":"t",' }),
        chunk({ content: '"final":"ok"}' }),
        chunk({}, 'stop'),
        { ...chunk({}), choices: [], usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } },
      ];
      const wire = `${events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join('')}: keep-alive\n\ndata: [DONE]\n\n`;
      // Cut the wire at awkward places, mid-line and mid-event.
      const cuts = [7, 50, 51, 200, wire.length - 9];
      let from = 0;
      for (const cut of cuts) {
        res.write(wire.slice(from, cut));
        from = cut;
      }
      res.end(wire.slice(from));
    });
    const deltas: string[] = [];
    const model = openAiCompatible({
      model: 'm',
      baseURL: provider.baseURL,
      stream: true,
      onDelta: (d) => deltas.push(d),
    });
    const result = await model.call(request());
    expect(result).toEqual({
      ok: true,
      text: '{"thought":"t","final":"ok"}',
      usage: { inputTokens: 11, outputTokens: 5 },
    });
    expect(deltas).toEqual(['{"thought":"t",', '"final":"ok"}']);
    expect(provider.received[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [
      400,
      { error: { message: 'Invalid value for messages', type: 'invalid_request_error', code: null } },
      'INVALID_PARAMETER',
    ],
    [
      401,
      {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
      'PERMISSION_DENIED',
    ],
    [
      429,
      { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      'RATE_LIMITED',
    ],
    [500, { error: { message: 'The server had an error', type: 'server_error' } }, 'SERVICE_UNAVAILABLE'],
    [
      529,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      'SERVICE_UNAVAILABLE',
    ],
  ])('HTTP %i is failure data with code %s and the provider message', async (status, body, code) => {
    provider = await fakeProvider((_r, res) =>
      json(res, status, body, status === 429 ? { 'retry-after': '2' } : {}),
    );
    const result = await openAiCompatible({ model: 'm', baseURL: provider.baseURL }).call(request());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(code);
    expect(result.error.message).toContain(`HTTP ${status}`);
    expect(result.error.message).toContain((body.error as { message: string }).message);
    if (status === 429) expect((result.error as { retryAfterMs?: number }).retryAfterMs).toBe(2000);
  });

  it('a connection reset mid-stream is SERVICE_UNAVAILABLE, not a throw', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk({ content: 'par' }))}\n\n`);
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const result = await openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }).call(
      request(),
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('a response that never ends times out, and the socket is closed', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk({ content: 'waiting' }))}\n\n`); // then nothing, forever
    });
    const model = openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true, timeoutMs: 100 });
    const result = await model.call(request());
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    await waitFor(() => provider?.openConnections() === 0);
  });

  it('the run’s model timeout caps the adapter’s own', async () => {
    provider = await fakeProvider(() => {
      /* never answers */
    });
    const model = openAiCompatible({ model: 'm', baseURL: provider.baseURL, timeoutMs: 60_000 });
    const result = await model.call({ ...request(), timeoutMs: 80 });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: 'no complete answer within 80 ms' },
    });
  });

  it('a run cancelled mid-request aborts the HTTP request and leaves no open socket', async () => {
    provider = await fakeProvider(() => {
      /* never answers */
    });
    const model = openAiCompatible({ model: 'm', baseURL: provider.baseURL });
    const run = runAgent({ query: 'q', model, tools: [] });
    await waitFor(() => provider?.received.length === 1);
    expect(provider.openConnections()).toBe(1);
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
    await waitFor(() => provider?.openConnections() === 0);
  });

  it('a malformed body and a refused connection are failure data', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [');
    });
    expect(await openAiCompatible({ model: 'm', baseURL: provider.baseURL }).call(request())).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('malformed') },
    });
    const closed = provider.baseURL;
    await provider.close();
    provider = undefined;
    expect(await openAiCompatible({ model: 'm', baseURL: closed }).call(request())).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('connection failed') },
    });
  });
});

describe('streamed deltas reach the run', () => {
  it('as progress events, in order', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const parts = ['{"thought":"t",', '"final":"streamed"}'];
      res.end(
        `${parts.map((content) => `data: ${JSON.stringify(chunk({ content }))}\n\n`).join('')}data: [DONE]\n\n`,
      );
    });
    const run = runAgent({
      query: 'q',
      model: openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }),
      tools: [],
    });
    const record = await run.result;
    expect(record.final_answer).toBe('streamed');
    const progress = run.events.filter((e) => e.type === 'step' && e.phase === 'progress');
    expect(progress.map((e) => (e as { text: string }).text)).toEqual([
      '{"thought":"t",',
      '"final":"streamed"}',
    ]);
  });
});

describe('a stream it cannot read', () => {
  it('is SERVICE_UNAVAILABLE, not a throw', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices": [\n\n');
    });
    const result = await openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }).call(
      request(),
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('malformed') },
    });
  });
});
