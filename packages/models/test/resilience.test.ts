import { afterEach, describe, expect, it } from 'vitest';
import { openAiCompatible, withFallback, withRetries } from '@reins/models';
import { runAgent, type Model, type ModelRequest, type ModelResult } from 'reins';
import { scriptModel } from 'reins/testing';
import { completion, fakeProvider, json, waitFor } from './fake-provider.js';

const final = (text: string): string => JSON.stringify({ thought: 't', final: text });
const request = (signal = new AbortController().signal): ModelRequest => ({
  messages: [{ role: 'user', content: 'q' }],
  tools: [],
  signal,
  step: 1,
  finalStep: false,
});
const fast = { baseDelayMs: 1, random: () => 1 };

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('withRetries', () => {
  it('retries 5xx and 429 with backoff, then succeeds', async () => {
    const inner = scriptModel([{ error: 'http_500' }, { error: 'http_429' }, final('ok')]);
    const result = await withRetries(inner, fast).call(request());
    expect(result).toMatchObject({ ok: true, text: final('ok') });
    expect(inner.calls).toHaveLength(3);
  });

  it('gives up after maxRetries and returns the last failure as data', async () => {
    const inner = scriptModel([
      { error: 'http_500' },
      { error: 'http_500' },
      { error: 'http_500' },
      final('late'),
    ]);
    const result = await withRetries(inner, fast).call(request());
    expect(result).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(inner.calls).toHaveLength(3);
    expect(inner.remaining).toBe(1);
  });

  it('does not retry what another try cannot fix', async () => {
    const inner = scriptModel([{ error: 'PERMISSION_DENIED' }, final('never')]);
    expect(await withRetries(inner, fast).call(request())).toMatchObject({
      ok: false,
      error: { code: 'PERMISSION_DENIED' },
    });
    expect(inner.calls).toHaveLength(1);
  });

  it('waits what Retry-After asks', async () => {
    let calls = 0;
    const limited: Model = {
      name: 'limited',
      call: async (): Promise<ModelResult> =>
        ++calls === 1
          ? ({ ok: false, error: { code: 'RATE_LIMITED', message: '429', retryAfterMs: 60 } } as ModelResult)
          : { ok: true, text: final('ok'), usage: { inputTokens: 1, outputTokens: 1 } },
    };
    const started = performance.now();
    expect(await withRetries(limited, { baseDelayMs: 1 }).call(request())).toMatchObject({ ok: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('never retries after the run aborted, even mid-backoff', async () => {
    const inner = scriptModel([{ error: 'http_500' }, final('never')]);
    const controller = new AbortController();
    const pending = withRetries(inner, { baseDelayMs: 10_000, random: () => 1 }).call(
      request(controller.signal),
    );
    setTimeout(() => controller.abort(), 10);
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(inner.calls).toHaveLength(1);
  });

  it('on the wire: a 503 then a 200 is one successful call', async () => {
    let hits = 0;
    provider = await fakeProvider((_r, res) =>
      ++hits === 1 ? json(res, 503, { error: { message: 'busy' } }) : json(res, 200, completion(final('ok'))),
    );
    const model = withRetries(openAiCompatible({ model: 'm', baseURL: provider.baseURL }), fast);
    expect(await model.call(request())).toMatchObject({ ok: true, text: final('ok') });
    expect(provider.received).toHaveLength(2);
  });
});

describe('withFallback', () => {
  it('answers on the fallback when the primary times out, and says which model answered', async () => {
    const model = withFallback(
      scriptModel([{ error: 'timeout' }], { name: 'primary' }),
      scriptModel([final('ok')], { name: 'backup' }),
    );
    const run = runAgent({ query: 'q', model, tools: [] });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'success', final_answer: 'ok' });
    expect(record.steps[0]?.detail.model).toBe('backup');
  });

  it('keeps the primary when it answers, and does not fall back on errors another model cannot fix', async () => {
    const ok = await withFallback(
      scriptModel([final('p')], { name: 'primary' }),
      scriptModel([], { name: 'b' }),
    ).call(request());
    expect(ok).toMatchObject({ ok: true, model: 'primary' });
    const backup = scriptModel([final('b')], { name: 'b' });
    const denied = await withFallback(scriptModel([{ error: 'PERMISSION_DENIED' }]), backup).call(request());
    expect(denied).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(backup.calls).toHaveLength(0);
  });

  it('a run whose real primary never answers completes on the fallback, leaving no socket open', async () => {
    provider = await fakeProvider(() => {
      /* never answers */
    });
    const primary = openAiCompatible({ model: 'slow', baseURL: provider.baseURL, timeoutMs: 100 });
    const model = withFallback(primary, scriptModel([final('from backup')], { name: 'backup' }));
    const record = await runAgent({ query: 'q', model, tools: [] }).result;
    expect(record).toMatchObject({ status: 'success', final_answer: 'from backup' });
    expect(record.steps[0]?.detail.model).toBe('backup');
    await waitFor(() => provider?.openConnections() === 0);
  });
});

describe('byRole', () => {
  it('sends tool-offering steps to the reasoning model and the last step to the final-answer model', async () => {
    const { byRole } = await import('@reins/models');
    const reasoning = scriptModel(
      [
        JSON.stringify({ thought: 't', action: 'nope', input: {} }),
        JSON.stringify({ thought: 't', action: 'nope', input: { a: 1 } }),
      ],
      { name: 'reasoner' },
    );
    const finalAnswer = scriptModel([final('done')], { name: 'finisher' });
    const record = await runAgent({
      query: 'q',
      model: byRole({ reasoning, finalAnswer }),
      tools: [],
      limits: { maxSteps: 3 },
    }).result;
    expect(record).toMatchObject({ status: 'success', final_answer: 'done' });
    expect(record.steps.filter((s) => s.phase === 'reason').map((s) => s.detail.model)).toEqual([
      'reasoner',
      'reasoner',
      'finisher',
    ]);
    reasoning.assertComplete();
    finalAnswer.assertComplete();
  });
});
