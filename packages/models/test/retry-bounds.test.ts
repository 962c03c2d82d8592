// Found in review: withRetries (packages/models/src/with-retries.ts). Each test failed on the
// code before the fix because of the defect named above it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openAiCompatible, retryAfterMs, withFallback, withRetries } from '@reins/models';
import type { Model, ModelResult } from 'reins';
import { chunk, fakeProvider, modelRequest } from './fake-provider.js';

const request = modelRequest;
const unavailable: ModelResult = {
  ok: false,
  error: { code: 'SERVICE_UNAVAILABLE', message: 'HTTP 503: busy' },
};

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await provider?.close();
  provider = undefined;
});

describe('withRetries and the step’s model timeout', () => {
  // Contract: `ModelRequest.timeoutMs` is "the longest this call may take (the run's model
  // timeout): adapters must not wait longer" (packages/reins/src/model.ts:55-56), and
  // withRetries says "Each try gets what is left of the step's model timeout; none starts when
  // nothing is" (packages/models/src/with-retries.ts:82). The loop relies on the model to honour
  // it (run-loop.ts does not race the call). Yet the backoff (with-retries.ts:64-70) is never
  // bounded by what is left: a 100 ms step waits out a whole 1 s backoff (or an 8 s
  // Retry-After) before answering TIMEOUT.
  it('a backoff longer than what is left of timeoutMs does not hold the call past it', async () => {
    const inner: Model = { name: 'busy', call: async () => unavailable };
    const started = performance.now();
    const result = await withRetries(inner, { baseDelayMs: 1_000, random: () => 1 }).call(
      request({ timeoutMs: 100 }),
    );
    const took = performance.now() - started;
    expect(result.ok).toBe(false);
    expect(took).toBeLessThan(400); // 100 ms budget, generous slack
  });
});

describe('withRetries and Retry-After', () => {
  // Contract: "`Retry-After` honoured" (docs/runtime.md:168-169, README.md:102 "retries per model
  // on 429 / 5xx … (`Retry-After` honoured)", with-retries.ts:48-49). With default options a
  // provider asking for 20 s is retried after 8 s: with-retries.ts:68 clamps the asked wait to
  // maxDelayMs (default 8 000), so the retry lands while the provider still refuses (another
  // 429 spent, the window not respected).
  it('with default options, no retry starts before the Retry-After the provider asked for', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const limited: Model = {
      name: 'limited',
      call: async (): Promise<ModelResult> => {
        calls++;
        return {
          ok: false,
          error: { code: 'RATE_LIMITED', message: 'HTTP 429', retryAfterMs: 20_000 },
        } as ModelResult;
      },
    };
    const pending = withRetries(limited).call(request());
    await vi.advanceTimersByTimeAsync(10_000); // half of what the provider asked
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    await pending;
  });

  // Contract: Retry-After is "delay-seconds = 1*DIGIT" or an HTTP-date (RFC 9110 §10.2.3);
  // `retryAfterMs` documents "Seconds or an HTTP date … undefined when absent or unreadable"
  // (packages/models/src/http-failure.ts:15). http-failure.ts:18 uses `Number(header)`, which
  // reads hex, exponents and signs: `0x3c` becomes a 60 s wait, `1e3` a 1 000 s wait, `-5` no
  // wait at all, instead of being treated as unreadable.
  it.each(['0x3c', '1e3', '-5'])('Retry-After %s is unreadable, not a number of seconds', (header) => {
    expect(retryAfterMs(header)).toBeUndefined();
  });
});

describe('withRetries and streamed text', () => {
  // Contract: streamed text must not be duplicated: `onDelta` reports "text as it arrives; the
  // run turns it into `progress` step events" (packages/reins/src/model.ts:57-61), and the
  // deltas of one call are documented to add up to its text (openai-wire.test "deltas … in
  // order"). A stream that fails mid-way (an `overloaded`/error event: SERVICE_UNAVAILABLE,
  // retryable) is retried by withRetries with the same `onDelta` (with-retries.ts:85/87), so
  // the listener receives the first attempt's partial text and then the whole second answer:
  // the progress shown is `{"thou{"thought":"t","final":"x"}`.
  it('the deltas a listener receives add up to the answer, not a failed attempt plus the answer', async () => {
    let hits = 0;
    provider = await fakeProvider((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (++hits === 1) {
        res.end(
          `data: ${JSON.stringify(chunk({ content: '{"thou' }))}\n\ndata: {"error":{"message":"overloaded"}}\n\n`,
        );
        return;
      }
      res.end(
        `data: ${JSON.stringify(chunk({ content: '{"thought":"t","final":"x"}' }))}\n\ndata: [DONE]\n\n`,
      );
    });
    const deltas: string[] = [];
    const model = withRetries(openAiCompatible({ model: 'm', baseURL: provider.baseURL, stream: true }), {
      baseDelayMs: 1,
    });
    const result = await model.call(request({ onDelta: (d) => deltas.push(d) }));
    expect(result).toMatchObject({ ok: true, text: '{"thought":"t","final":"x"}' });
    expect(deltas.join('')).toBe('{"thought":"t","final":"x"}');
  });
});

// Found in review: when both the primary and its fallback failed, the combined failure dropped
// the fallback's `retryAfterMs`, so an outer withRetries retried on its own schedule.
describe('withFallback keeps the wait a failing fallback asked for', () => {
  it('the combined failure carries the fallback’s retryAfterMs', async () => {
    const down: Model = { name: 'down', call: async () => unavailable };
    const limited: Model = {
      name: 'limited',
      call: async () =>
        ({
          ok: false,
          error: { code: 'RATE_LIMITED', message: 'HTTP 429', retryAfterMs: 1_500 },
        }) as ModelResult,
    };
    const result = await withFallback(down, limited).call(request());
    expect(result.ok).toBe(false);
    expect(!result.ok && (result.error as { retryAfterMs?: number }).retryAfterMs).toBe(1_500);
  });
});

// The same for a fallback: what the primary streamed before it failed is not streamed again.
describe('withFallback and streamed text', () => {
  it('the deltas a listener receives add up to the answer, once', async () => {
    const answer = '{"thought":"t","final":"x"}';
    const primary: Model = {
      name: 'primary',
      call: async (r) => {
        r.onDelta?.(answer.slice(0, 6));
        return unavailable;
      },
    };
    const backup: Model = {
      name: 'backup',
      call: async (r) => {
        r.onDelta?.(answer.slice(0, 10));
        r.onDelta?.(answer.slice(10));
        return { ok: true, text: answer, usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const deltas: string[] = [];
    const result = await withFallback(primary, backup).call(request({ onDelta: (d) => deltas.push(d) }));
    expect(result.ok).toBe(true);
    expect(deltas.join('')).toBe(answer);
  });
});
