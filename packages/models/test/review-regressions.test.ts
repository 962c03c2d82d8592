// Regression tests for the bugs a review found in @reins/models; each is named after its bug.
import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropic,
  gradualRollout,
  memoryReplyStore,
  openAiCompatible,
  sseData,
  withFallback,
  withReasoningCache,
} from '@reins/models';
import { runAgent, type Model, type ModelRequest, type ModelResult } from 'reins';
import { scriptModel } from 'reins/testing';
import { chunk, fakeProvider, json, modelRequest } from './fake-provider.js';

const final = (text: string): string => JSON.stringify({ thought: 't', final: text });
const request = modelRequest;

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('adapters never reject', () => {
  it('a fractional or infinite timeout is clamped, not thrown', async () => {
    provider = await fakeProvider((_r, res) =>
      json(res, 200, { choices: [{ message: { content: final('ok') } }] }),
    );
    await expect(
      openAiCompatible({ model: 'm', baseURL: provider.baseURL }).call(request({ timeoutMs: 1000.5 })),
    ).resolves.toMatchObject({ ok: true });
    await expect(
      anthropic({
        model: 'm',
        apiKey: 'k',
        baseURL: provider.baseURL,
        timeoutMs: Number.POSITIVE_INFINITY,
      }).call(request()),
    ).resolves.toHaveProperty('ok'); // resolved (the fake speaks OpenAI's format; what matters: no rejection)
  });
});

describe('streams that do not end well', () => {
  it('an error inside an OpenAI stream is a failure, not a truncated success', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `data: ${JSON.stringify(chunk({ content: '{"thou' }))}\n\ndata: {"error":{"message":"model crashed"}}\n\n`,
      );
    });
    const result = await openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }).call(
      request(),
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'stream error: model crashed' },
    });
  });

  it('a stream that ends without its end mark is truncated (both adapters)', async () => {
    provider = await fakeProvider((r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (r.path.endsWith('/chat/completions'))
        res.end(`data: ${JSON.stringify(chunk({ content: '{"th' }))}\n\n`);
      else
        res.end(
          `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', delta: { type: 'text_delta', text: '{"th' } })}\n\n`,
        );
    });
    expect(
      await openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }).call(request()),
    ).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('truncated') },
    });
    expect(
      await anthropic({ model: 'm', apiKey: 'k', baseURL: provider.baseURL, stream: true }).call(request()),
    ).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('truncated') },
    });
  });

  it('anthropic-rate-limit-mid-stream-is-RATE_LIMITED (so it is retried)', async () => {
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } })}\n\n`,
      );
    });
    expect(
      await anthropic({ model: 'm', apiKey: 'k', baseURL: provider.baseURL, stream: true }).call(request()),
    ).toMatchObject({
      ok: false,
      error: { code: 'RATE_LIMITED' },
    });
  });

  it('SSE lines may end with a bare CR', async () => {
    async function* body() {
      yield new TextEncoder().encode('data: a\r\rdata: b\r\r');
    }
    const payloads: string[] = [];
    for await (const data of sseData(body())) payloads.push(data);
    expect(payloads).toEqual(['a', 'b']);
  });
});

describe('wrappers keep the step within its model timeout', () => {
  it('the fallback gets what is left of the budget', async () => {
    const seen: (number | undefined)[] = [];
    const slowFail: Model = {
      name: 'primary',
      call: async (r) => {
        seen.push(r.timeoutMs);
        await new Promise((resolve) => setTimeout(resolve, 60));
        return { ok: false, error: { code: 'TIMEOUT', message: 'slow' } };
      },
    };
    const backup: Model = {
      name: 'backup',
      call: async (r): Promise<ModelResult> => {
        seen.push(r.timeoutMs);
        return { ok: true, text: final('b'), usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    await withFallback(slowFail, backup).call(request({ timeoutMs: 200 }));
    expect(seen[0]).toBe(200);
    expect(seen[1]).toBeLessThanOrEqual(145);
  });

  it('streamed deltas survive a wrapper that spreads the request', async () => {
    const streaming: Model = {
      name: 's',
      call: async (r) => {
        r.onDelta?.('{"thought":"t","final":"x"}');
        return { ok: true, text: final('x'), usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const wrapper: Model = { name: 'w', call: (r) => streaming.call({ ...r, timeoutMs: 10_000 }) };
    const run = runAgent({ query: 'q', model: wrapper, tools: [] });
    await run.result;
    expect(run.events.some((e) => e.type === 'step' && e.phase === 'progress')).toBe(true);
  });
});

describe('gradual rollout judges runs by id', () => {
  it('a candidate whose every call fails (MODEL_FAILED) is switched off', async () => {
    const failing: Model = {
      name: 'candidate',
      call: async () => ({ ok: false, error: { code: 'NOT_FOUND', message: 'no such model' } }),
    };
    const rollout = gradualRollout({
      stable: scriptModel([]),
      candidate: failing,
      share: 1,
      minSteps: 5,
      assign: () => 0,
    });
    for (let i = 0; i < 6; i++)
      await rollout.observe(runAgent({ query: 'q', model: rollout.model, tools: [] }));
    expect(rollout.stats()).toMatchObject({ enabled: false, candidateErrors: 5 });
  });

  it('a wrapped candidate (answering under another name) is still counted', async () => {
    const wrapped = withFallback(
      {
        name: 'c1',
        call: async () => ({ ok: true, text: 'not json', usage: { inputTokens: 1, outputTokens: 1 } }),
      },
      scriptModel([]),
    );
    const rollout = gradualRollout({
      stable: scriptModel([]),
      candidate: wrapped,
      share: 1,
      minSteps: 3,
      assign: () => 0,
    });
    for (let i = 0; i < 3; i++)
      await rollout.observe(runAgent({ query: 'q', model: rollout.model, tools: [] }));
    expect(rollout.stats()).toMatchObject({ candidateSteps: 3, candidateErrors: 3, enabled: false });
  });
});

describe('reasoning cache keys', () => {
  it('differ by the tools offered, ignore act ids, and a hit costs no tokens', async () => {
    const inner = scriptModel([final('a'), final('b'), final('c')]);
    const model = withReasoningCache(inner, { store: memoryReplyStore(), promptVersion: 'p' });
    const tool = { name: 'echo', description: 'e', inputSchema: {} };
    await model.call(request({ tools: [tool] }));
    expect(await model.call(request({ tools: [] }))).toMatchObject({ text: final('b') }); // not the tooled reply
    const observed = (actId: string): ModelRequest =>
      request({
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'x' },
          { role: 'user', content: `Observation (tool echo, act ${actId}): {"status":"ok"}` },
        ],
      });
    await model.call(observed('11111111-1111-4111-8111-111111111111'));
    const hit = await model.call(observed('22222222-2222-4222-8222-222222222222'));
    expect(hit).toMatchObject({ ok: true, text: final('c'), usage: { inputTokens: 0, outputTokens: 0 } });
    expect(inner.calls).toHaveLength(3);
  });
});
