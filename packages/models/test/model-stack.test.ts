import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelConfigError, modelStack, type ModelStack } from '@reins/models';
import { defineTool, runAgent, type RunRecord } from 'reins';
import { completion, fakeProvider, json } from './fake-provider.js';

type Fake = Awaited<ReturnType<typeof fakeProvider>>;
const final = (text: string) => JSON.stringify({ thought: 't', final: text });
/** A Messages API response, as in Anthropic's API reference. */
const message = (text: string) => ({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 5, output_tokens: 3 },
});
const openaiAnswers = (text: string) => fakeProvider((_r, res) => json(res, 200, completion(text)));
const anthropicAnswers = (text: string) => fakeProvider((_r, res) => json(res, 200, message(text)));
/** The Anthropic fake's root: the adapter adds `/v1/messages` itself. */
const root = (fake: Fake) => fake.baseURL.replace(/\/v1$/, '');
const fast = { retry: { baseDelayMs: 1, maxDelayMs: 5 } };

const fakes: Fake[] = [];
const stacks: ModelStack[] = [];
afterEach(async () => {
  for (const stack of stacks.splice(0)) await stack.close();
  for (const fake of fakes.splice(0)) await fake.close();
});
async function serve(made: Promise<Fake>): Promise<Fake> {
  const fake = await made;
  fakes.push(fake);
  return fake;
}
async function stackOf(env: Record<string, string>, options: Parameters<typeof modelStack>[1] = fast) {
  const stack = await modelStack(env, options);
  stacks.push(stack);
  return stack;
}
const reasonDetail = (record: RunRecord, step = 0) =>
  record.steps.filter((s) => s.phase === 'reason')[step]?.detail as Record<string, unknown>;

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks something up.',
  input: z.object({ q: z.string() }),
  output: z.object({ found: z.string() }),
  readOnly: true,
  run: ({ q }) => ({ found: q }),
});
const order = defineTool({
  name: 'order',
  description: 'Orders something.',
  input: z.object({ item: z.string() }),
  output: z.object({ ok: z.boolean() }),
  readOnly: false,
  run: () => ({ ok: true }),
});

describe('the model stack from the environment', () => {
  it('retries the primary, then the fallback takes over when it keeps failing (500s); the record says why', async () => {
    const primary = await serve(fakeProvider((_r, res) => json(res, 500, { error: { message: 'down' } })));
    const fallback = await serve(anthropicAnswers(final('from the fallback')));
    const stack = await stackOf({
      REINS_MODEL: 'openai:primary',
      OPENAI_BASE_URL: primary.baseURL,
      REINS_MODEL_FALLBACK: 'anthropic:backup',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: root(fallback),
      REINS_MODEL_RETRIES: '1',
      REINS_REASONING_CACHE: 'off',
    });
    const run = runAgent({ query: 'q', model: stack.model, tools: [] });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'success', final_answer: 'from the fallback' });
    expect(primary.received).toHaveLength(2); // the first try and one retry
    expect(fallback.received).toHaveLength(1);
    expect(fallback.received[0]?.path).toBe('/v1/messages'); // ANTHROPIC_BASE_URL honoured
    expect(reasonDetail(record)).toMatchObject({
      model: 'anthropic:backup',
      route: 'fallback after SERVICE_UNAVAILABLE from openai-compatible:primary',
    });
    const start = run.events.find((e) => e.type === 'start');
    expect(start).toMatchObject({ modelStack: expect.stringContaining('openai:primary → anthropic:backup') });
    expect(record.model_stack).toContain('retries 1 per model');
  });

  it('sends temperature 0.1 by default, REINS_TEMPERATURE when set, to both providers', async () => {
    const openai = await serve(openaiAnswers(final('ok')));
    const claude = await serve(anthropicAnswers(final('ok')));
    const env = { OPENAI_BASE_URL: openai.baseURL, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: root(claude) };
    for (const spec of ['openai:m', 'anthropic:c']) {
      await runAgent({ query: 'q', model: (await stackOf({ ...env, REINS_MODEL: spec })).model, tools: [] })
        .result;
      const hot = await stackOf({ ...env, REINS_MODEL: spec, REINS_TEMPERATURE: '0.7' });
      await runAgent({ query: 'q2', model: hot.model, tools: [] }).result;
    }
    expect(openai.received.map((r) => r.body.temperature)).toEqual([0.1, 0.7]);
    expect(claude.received.map((r) => r.body.temperature)).toEqual([0.1, 0.7]);
  });

  it('per-provider timeouts: a silent primary times out at REINS_OPENAI_TIMEOUT_MS, within the run’s model timeout', async () => {
    const silent = await serve(
      fakeProvider(() => {
        /* never answers */
      }),
    );
    const fallback = await serve(anthropicAnswers(final('in time')));
    const stack = await stackOf({
      REINS_MODEL: 'openai:slow',
      OPENAI_BASE_URL: silent.baseURL,
      REINS_OPENAI_TIMEOUT_MS: '150',
      REINS_MODEL_FALLBACK: 'anthropic:quick',
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: root(fallback),
    });
    const started = Date.now();
    const record = await runAgent({
      query: 'q',
      model: stack.model,
      tools: [],
      limits: { modelTimeoutMs: 20_000 },
    }).result;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(record.final_answer).toBe('in time');
    expect(reasonDetail(record).route).toBe('fallback after TIMEOUT from openai-compatible:slow');

    const anthropicOnly = await stackOf({
      REINS_MODEL: 'anthropic:slow',
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: root(silent),
      REINS_ANTHROPIC_TIMEOUT_MS: '150',
      REINS_MODEL_RETRIES: '0',
    });
    const timedOut = await runAgent({
      query: 'q',
      model: anthropicOnly.model,
      tools: [],
      limits: { modelTimeoutMs: 20_000 },
    }).result;
    expect(timedOut.error?.message).toContain('TIMEOUT');
  });

  it('a cache hit skips the model call on a read-only step, and never caches a step offering a tool that changes things', async () => {
    const openai = await serve(openaiAnswers(final('cached answer')));
    const stack = await stackOf({ REINS_MODEL: 'openai:m', OPENAI_BASE_URL: openai.baseURL });
    const first = await runAgent({ query: 'same question', model: stack.model, tools: [lookup] }).result;
    const second = await runAgent({ query: 'same question', model: stack.model, tools: [lookup] }).result;
    expect(openai.received).toHaveLength(1);
    expect(second.final_answer).toBe(first.final_answer);
    expect(reasonDetail(second).route).toBe('cache hit');
    expect(second.usage).toEqual({ input_tokens: 0, output_tokens: 0 });

    await runAgent({ query: 'write question', model: stack.model, tools: [lookup, order] }).result;
    await runAgent({ query: 'write question', model: stack.model, tools: [lookup, order] }).result;
    expect(openai.received).toHaveLength(3); // both asked the model
    expect(stack.cache?.stats()).toEqual({ hits: 1, misses: 1, skipped: 2, hitRate: 0.5 });
    expect(stack.serverOptions.reasoningCaches?.model).toBe(stack.cache);
  });

  it('with REDIS_URL the cache is shared: another instance hits what the first stored', async () => {
    const openai = await serve(openaiAnswers(final('shared answer')));
    const env = {
      REINS_MODEL: 'openai:m',
      OPENAI_BASE_URL: openai.baseURL,
      REDIS_URL: 'redis://127.0.0.1:6379',
    };
    const query = `shared question ${Date.now()}`; // fresh keys in a Redis other tests share
    const first = await stackOf(env);
    expect(first.description).toContain('reasoning cache in Redis');
    // The client connects on its own; a miss meanwhile is only a miss.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await runAgent({ query, model: first.model, tools: [lookup] }).result;
    const second = await stackOf(env);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const record = await runAgent({ query, model: second.model, tools: [lookup] }).result;
    expect(reasonDetail(record).route).toBe('cache hit');
    expect(openai.received).toHaveLength(1);
    expect(second.cache?.stats()).toMatchObject({ hits: 1, misses: 0 });
  });

  it('REINS_REASONING_CACHE=off: every step asks the model', async () => {
    const openai = await serve(openaiAnswers(final('fresh')));
    const stack = await stackOf({
      REINS_MODEL: 'openai:m',
      OPENAI_BASE_URL: openai.baseURL,
      REINS_REASONING_CACHE: 'off',
    });
    for (let i = 0; i < 2; i++) await runAgent({ query: 'same', model: stack.model, tools: [lookup] }).result;
    expect(openai.received).toHaveLength(2);
    expect(stack.cache).toBeUndefined();
  });

  it('routes by role: tool steps to the planner, the last tool-less step to the responder', async () => {
    const planner = await serve(
      openaiAnswers(JSON.stringify({ thought: 't', action: 'lookup', input: { q: 'x' } })),
    );
    const responder = await serve(anthropicAnswers(final('answered by the responder')));
    const stack = await stackOf({
      REINS_MODEL: 'openai:plan',
      OPENAI_BASE_URL: planner.baseURL,
      REINS_MODEL_RESPONDER: 'anthropic:respond',
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: root(responder),
      REINS_REASONING_CACHE: 'off',
    });
    const record = await runAgent({
      query: 'q',
      model: stack.model,
      tools: [lookup],
      limits: { maxSteps: 2 },
    }).result;
    expect(record.final_answer).toBe('answered by the responder');
    expect(reasonDetail(record, 0).route).toBe('role planner');
    expect(reasonDetail(record, 1)).toMatchObject({ route: 'role responder', model: 'anthropic:respond' });
  });

  it('the rollout is sticky per user and switches itself off when the candidate returns unparseable text', async () => {
    const stable = await serve(openaiAnswers(final('stable answer')));
    const candidate = await serve(anthropicAnswers('this is not a decision at all'));
    const switchedOff: string[] = [];
    const stack = await stackOf(
      {
        REINS_MODEL: 'openai:stable',
        OPENAI_BASE_URL: stable.baseURL,
        REINS_MODEL_CANDIDATE: 'anthropic:candidate',
        ANTHROPIC_API_KEY: 'k',
        ANTHROPIC_BASE_URL: root(candidate),
        REINS_ROLLOUT_PERCENT: '50',
        REINS_ROLLOUT_WINDOW: '4',
        REINS_REASONING_CACHE: 'off',
      },
      {
        ...fast,
        assign: (user) => (user.startsWith('cand') ? 0.1 : 0.9),
        onSwitchOff: (m) => switchedOff.push(m),
      },
    );
    const rollout = stack.rollout;
    if (rollout === undefined) throw new Error('no rollout');
    const ask = async (user: string, i: number) => {
      const run = runAgent({ query: `q${i}`, model: stack.model, tools: [], principal: { id: user } });
      await rollout.observe(run);
      return reasonDetail(await run.result).route;
    };
    // Sticky per user: cand-a always gets the candidate, stable-a never (while it is on).
    expect(await ask('cand-a', 0)).toBe('rollout candidate');
    expect(await ask('stable-a', 1)).toBe('rollout stable');
    expect(await ask('cand-a', 2)).toBe('rollout candidate');
    expect(await ask('cand-b', 3)).toBe('rollout candidate');
    expect(rollout.stats().enabled).toBe(true);
    expect(await ask('cand-b', 4)).toBe('rollout candidate'); // 4 failed steps of 4: 100 % vs 0 %
    expect(rollout.stats().enabled).toBe(false);
    expect(switchedOff).toHaveLength(1);
    expect(switchedOff[0]).toContain('anthropic:candidate switched off');
    expect(await ask('cand-a', 5)).toBe('rollout stable');
    expect(candidate.received).toHaveLength(4);
    const { arms } = rollout.stats();
    expect(arms.candidate).toMatchObject({ steps: 4, errorRate: 1 });
    expect(arms.stable).toMatchObject({
      runs: 2,
      successes: 2,
      successRate: 1,
      averageSteps: 1,
      errorRate: 0,
    });
    expect(stack.serverOptions.rollouts?.model).toBe(rollout);
  });

  it('demo and script models are not composed', async () => {
    const demo = await stackOf({});
    expect(demo.model.name).toBe('demo');
    expect(demo.model.stack).toBeUndefined();
    expect(demo.serverOptions).toEqual({});
  });

  it.each([
    ['REINS_TEMPERATURE', { REINS_TEMPERATURE: '3' }],
    ['REINS_TEMPERATURE', { REINS_TEMPERATURE: 'warm' }],
    ['REINS_OPENAI_TIMEOUT_MS', { REINS_OPENAI_TIMEOUT_MS: '0' }],
    ['REINS_ANTHROPIC_TIMEOUT_MS', { REINS_ANTHROPIC_TIMEOUT_MS: '1.5s' }],
    ['REINS_MODEL_RETRIES', { REINS_MODEL_RETRIES: '-1' }],
    ['REINS_MODEL_RETRIES', { REINS_MODEL_RETRIES: '11' }],
    ['REINS_MODEL_FALLBACK', { REINS_MODEL_FALLBACK: 'anthropic:x,gpt-4o' }],
    ['REINS_MODEL_PLANNER', { REINS_MODEL_PLANNER: 'planner' }],
    ['REINS_MODEL_RESPONDER', { REINS_MODEL_RESPONDER: 'openai:' }],
    ['REINS_MODEL_CANDIDATE', { REINS_MODEL_CANDIDATE: 'cohere:command' }],
    ['REINS_ROLLOUT_PERCENT', { REINS_MODEL_CANDIDATE: 'openai:c', REINS_ROLLOUT_PERCENT: '150' }],
    ['REINS_ROLLOUT_PERCENT', { REINS_ROLLOUT_PERCENT: '10' }], // no candidate to roll out
    ['REINS_ROLLOUT_WINDOW', { REINS_MODEL_CANDIDATE: 'openai:c', REINS_ROLLOUT_WINDOW: '0' }],
    ['REINS_REASONING_CACHE', { REINS_REASONING_CACHE: 'maybe' }],
    ['ANTHROPIC_BASE_URL', { ANTHROPIC_BASE_URL: 'api.example' }],
    ['REINS_MODEL_FALLBACK', { REINS_MODEL_FALLBACK: 'anthropic:needs-a-key' }],
  ])('refuses a malformed %s at start-up, naming it (INVALID_PARAMETER)', async (name, bad) => {
    const env = { REINS_MODEL: 'openai:m', OPENAI_API_KEY: 'sk-test', ...bad };
    const refused = modelStack(env);
    await expect(refused).rejects.toBeInstanceOf(ModelConfigError);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    await expect(refused).rejects.toThrow(name);
  });
});
