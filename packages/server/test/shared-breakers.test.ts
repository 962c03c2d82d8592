import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createToolPolicies,
  defaultDeps,
  defineTool,
  executeAction,
  memoryBreakerStore,
  ToolError,
  type ActEnv,
  type BreakerStore,
  type Model,
  type ToolPolicies,
} from 'reins';
import { createRedisClient, NON_QUEUEING_REDIS_OPTIONS, redisBreakerStore } from '@reins/server';
import { act, as, final, postJson, sleep, start, type Started } from './helpers.js';

const prefix = `reins-test:breakers:${process.pid}:${Date.now()}:`;
let admin: Redis;
const open: Started[] = [];
const clients: Redis[] = [];

beforeAll(() => {
  admin = new Redis('redis://127.0.0.1:6379', { ...NON_QUEUEING_REDIS_OPTIONS, enableOfflineQueue: true });
});
afterAll(async () => {
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const c of clients.splice(0)) c.disconnect();
});

const settings = { failures: 3, openMs: 60 };

describe.each([
  ['memory', () => memoryBreakerStore()],
  ['redis', () => redisBreakerStore(admin, { prefix: `${prefix}${Math.random()}:` })],
] as const)('breaker store contract: %s', (_name, make: () => BreakerStore) => {
  it('3 consecutive failures open it; a success in between resets the count', async () => {
    const store = make();
    expect(await store.admit('t', settings)).toEqual({ verdict: 'pass', state: 'closed' });
    expect(await store.record('t', settings, true, false)).toBe('closed');
    expect(await store.record('t', settings, true, false)).toBe('closed');
    expect(await store.record('t', settings, false, false)).toBe('closed');
    expect(await store.record('t', settings, true, false)).toBe('closed');
    expect(await store.record('t', settings, true, false)).toBe('closed');
    expect(await store.record('t', settings, true, false)).toBe('open');
    expect(await store.admit('t', settings)).toEqual({ verdict: 'refuse', state: 'open' });
    expect(await store.admit('other', settings)).toEqual({ verdict: 'pass', state: 'closed' });
  });

  it('after openMs one probe goes through (others refused); its failure reopens, its success closes', async () => {
    const store = make();
    for (let i = 0; i < 3; i++) await store.record('t', settings, true, false);
    await sleep(90);
    expect(await store.admit('t', settings)).toEqual({ verdict: 'probe', state: 'half_open' });
    expect((await store.admit('t', settings)).verdict).toBe('refuse');
    expect(await store.record('t', settings, true, true)).toBe('open');
    expect((await store.admit('t', settings)).verdict).toBe('refuse');
    await sleep(90);
    expect((await store.admit('t', settings)).verdict).toBe('probe');
    expect(await store.record('t', settings, false, true)).toBe('closed');
    expect(await store.admit('t', settings)).toEqual({ verdict: 'pass', state: 'closed' });
  });
});

function failingTool() {
  let calls = 0;
  const tool = defineTool({
    name: 'flaky',
    description: 'Always down.',
    input: z.object({ n: z.number() }),
    output: z.object({ ok: z.boolean() }),
    readOnly: true, // no approval; INTERNAL is not retried, so one call = one failure
    run: () => {
      calls++;
      throw new ToolError('INTERNAL', 'down');
    },
  });
  return { tool, calls: () => calls };
}

const model: Model = {
  name: 'caller',
  call: async (request) => ({
    ok: true,
    text: request.finalStep ? final('gave up') : act('flaky', { n: request.step }),
    usage: { inputTokens: 1, outputTokens: 1 },
  }),
};

async function instance(redisPrefix: string, tool: ReturnType<typeof failingTool>['tool']) {
  const redis = createRedisClient('redis://127.0.0.1:6379');
  clients.push(redis);
  if (redis.status !== 'ready') await new Promise((r) => redis.once('ready', r));
  const s = await start({ agents: { a: { model, tools: [tool] } }, redis, redisPrefix });
  open.push(s);
  return s;
}

describe('shared breakers over Redis', () => {
  it('a breaker opened through instance A refuses on instance B', async () => {
    const shared = `${prefix}${Math.random()}:`;
    const flaky = failingTool();
    const a = await instance(shared, flaky.tool);
    const b = await instance(shared, flaky.tool);
    const first = await postJson(`${a.url}/v1/runs`, { agent: 'a', input: 'q', maxSteps: 4 }, as('u'));
    expect(first.status).toBe(200);
    expect(flaky.calls()).toBe(3); // three failures: open
    const health = (await (await fetch(`${b.url}/health`)).json()) as { checks: Record<string, unknown> };
    expect(health.checks['breakers']).toBeDefined();
    const second = await postJson(`${b.url}/v1/runs`, { agent: 'a', input: 'q2', maxSteps: 3 }, as('u'));
    expect(second.status).toBe(200);
    expect(flaky.calls()).toBe(3); // refused on B without a call
    expect(JSON.stringify(second.body)).toContain('circuit breaker is open');
  });
});

describe('the half-open probe over Redis (issue 16.15)', () => {
  it('after a storm, two instances see the breaker close once the dependency is back, with no call', async () => {
    const store = redisBreakerStore(admin, { prefix: `${prefix}${Math.random()}:` });
    let up = false;
    let probes = 0;
    const probe = () => {
      probes++;
      return up;
    };
    const dependency = defineTool({
      name: 'dep',
      description: 'A dependency with a probe.',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      policy: { retries: 0, breaker: { failures: 2, openMs: 150, probe } },
      run: () => {
        if (!up) throw new ToolError('SERVICE_UNAVAILABLE', 'down');
        return { ok: true };
      },
    });
    const instances = [createToolPolicies({ breakers: store }), createToolPolicies({ breakers: store })];
    const env = (policies: ToolPolicies): ActEnv => ({
      registry: new Map([[dependency.name, dependency]]),
      principal: { id: 'u' },
      runId: 'r',
      signal: new AbortController().signal,
      defaultTimeoutMs: 1_000,
      deps: defaultDeps,
      policies,
    });
    // The storm: A fails twice (open); B is refused without a call.
    for (let i = 0; i < 2; i++)
      await executeAction({ actId: `a${i}`, tool: 'dep', input: {} }, env(instances[0] as ToolPolicies));
    const refused = await executeAction(
      { actId: 'b0', tool: 'dep', input: {} },
      env(instances[1] as ToolPolicies),
    );
    expect(refused.status).toBe('rejected');
    expect(instances.map((p) => p.guardFor(dependency).breakerState)).toEqual(['open', 'open']);
    up = true;
    const deadline = Date.now() + 5_000;
    while (instances.some((p) => p.guardFor(dependency).breakerState !== 'closed') && Date.now() < deadline)
      await sleep(20);
    expect(instances.map((p) => p.guardFor(dependency).breakerState)).toEqual(['closed', 'closed']);
    expect(probes).toBe(1); // one probe for both instances: the store gives the turn to one
  });
});
