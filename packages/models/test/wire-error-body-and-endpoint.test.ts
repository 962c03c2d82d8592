// Found in review: the adapters on the wire (openai-compatible.ts, anthropic.ts) and the
// base URL setting they are built from (env-settings.ts / model-from-env.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { ModelConfigError, anthropic, chooseModel, openAiCompatible, readModelConfig } from '@reins/models';
import { completion, fakeProvider, json, modelRequest } from './fake-provider.js';

const request = modelRequest;

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('a 2xx reply that carries an error, not an answer', () => {
  // Contract: the adapter "turns every failure into data" (docs/runtime.md:215-219;
  // openai-compatible.ts:69-72 "every failure is data with a code"), and the streamed path
  // already treats an `{"error": …}` payload as SERVICE_UNAVAILABLE (openai-compatible.ts:203-206,
  // review-regressions "an error inside an OpenAI stream is a failure, not a truncated
  // success"). Gateways (OpenRouter, LiteLLM, proxies) do answer 200 with an error object. The
  // non-streamed path (readCompletion, openai-compatible.ts:175-179) reads `choices?.[0]` and,
  // finding none, returns `ok: true` with empty text and estimated usage: the failure is hidden
  // from withRetries / withFallback and the loop gets a blank "answer".
  it('openai-compatible: 200 {"error": …} is failure data, not an empty success', async () => {
    provider = await fakeProvider((_r, res) =>
      json(res, 200, { error: { message: 'upstream provider returned 502', code: 502 } }),
    );
    const result = await openAiCompatible({ model: 'm', baseURL: provider.baseURL }).call(request());
    expect(result.ok).toBe(false);
  });

  // Same for Anthropic (anthropic.ts:227-237): a 200 body that is an error event
  // (`{"type":"error","error":{…}}`, the shape the stream path maps to a code at
  // anthropic.ts:275-277) becomes `ok: true, text: ''`.
  it('anthropic: 200 {"type":"error"} is failure data, not an empty success', async () => {
    provider = await fakeProvider((_r, res) =>
      json(res, 200, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    const result = await anthropic({ model: 'm', apiKey: 'k', baseURL: provider.baseURL }).call(request());
    expect(result.ok).toBe(false);
  });
});

describe('OPENAI_BASE_URL with a query string', () => {
  // Contract: settings are checked and "a malformed one" refused with ModelConfigError
  // (docs/runtime.md:198-200; env-settings.ts:45 "An http(s) URL; anything else is refused").
  // urlSetting (env-settings.ts:46-59) accepts any http(s) URL, and the adapter builds the
  // endpoint by string concatenation (openai-compatible.ts:75 and :92, anthropic.ts:85/:100):
  // a base URL with a query (e.g. a gateway's `?api-version=…`) is accepted silently and every
  // request goes to `/v1?api-version=2024-06-01/chat/completions` — the path is `/v1`, the
  // endpoint name ends up inside the query. Either refuse such a URL or put the path before
  // the query.
  it('requests go to …/chat/completions, or the setting is refused', async () => {
    provider = await fakeProvider((_r, res) => json(res, 200, completion('{"thought":"t","final":"x"}')));
    const env = { REINS_MODEL: 'openai:m', OPENAI_BASE_URL: `${provider.baseURL}?api-version=2024-06-01` };
    let chosen;
    try {
      chosen = await chooseModel(readModelConfig(env));
    } catch (thrown) {
      expect(thrown).toBeInstanceOf(ModelConfigError); // refused at start-up: acceptable
      return;
    }
    await chosen.model.call(request());
    expect(provider.received[0]?.path.split('?')[0]).toBe('/v1/chat/completions');
  });
});
