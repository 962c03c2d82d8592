import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  ToolError,
  createToolPolicies,
  defineTool,
  executeAction,
  runAgent,
  type ActEnv,
  type AnyTool,
  type BreakerState,
  type ErrorCode,
  type ToolCallReport,
  type ToolPolicy,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { actEnv, act, final } from './helpers.js';

/** A read-only tool whose next outcomes are scripted: a code fails with it, `ok` answers. */
function scripted(name: string, policy?: ToolPolicy, extra: Partial<AnyTool> = {}) {
  const outcomes: (ErrorCode | 'ok')[] = [];
  const state = { calls: 0 };
  const tool = defineTool({
    name,
    description: name,
    input: z.object({ q: z.string().optional() }),
    output: z.object({ from: z.string() }),
    readOnly: true,
    ...(policy === undefined ? {} : { policy }),
    ...extra,
    run: () => {
      state.calls++;
      const next = outcomes.shift() ?? 'ok';
      if (next !== 'ok') throw new ToolError(next, `${name} says ${next}`);
      return { from: name };
    },
  });
  return { tool, outcomes, state };
}

const envFor = actEnv;

let n = 0;
const call = (env: ActEnv, tool: string, input: Record<string, unknown> = {}) =>
  executeAction({ actId: `act-${++n}`, tool, input }, env);

afterEach(() => {
  vi.useRealTimers();
});

describe('circuit breaker (cockatiel), per tool across runs', () => {
  it('closed → open after 3 failures → no calls while open → half-open probe → closed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const transitions: [string, BreakerState][] = [];
    const policies = createToolPolicies({ onBreaker: (tool, state) => transitions.push([tool, state]) });
    const { tool, outcomes, state } = scripted('svc', { retries: 0 });
    const env = envFor([tool], policies);
    outcomes.push('SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE');
    for (let i = 0; i < 3; i++) expect((await call(env, 'svc')).error?.code).toBe('SERVICE_UNAVAILABLE');
    await Promise.resolve(); // the breaker hears of a direct failure one microtask later
    expect(policies.guardFor(tool).breakerState).toBe('open');
    expect(transitions).toEqual([['svc', 'open']]);

    for (let i = 0; i < 5; i++) {
      const refused = await call(env, 'svc');
      expect(refused.status).toBe('rejected');
      expect(refused.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(refused.error?.message).toContain('circuit breaker is open');
    }
    expect(state.calls).toBe(3); // calls while open: 0

    vi.setSystemTime(Date.now() + 299_000);
    expect((await call(env, 'svc')).status).toBe('rejected'); // still open at 4 min 59 s
    vi.setSystemTime(Date.now() + 2_000);
    const probe = await call(env, 'svc'); // the probe succeeds
    expect(probe).toMatchObject({ status: 'ok', result: { from: 'svc' } });
    expect(state.calls).toBe(4);
    expect(policies.guardFor(tool).breakerState).toBe('closed');
    expect(transitions).toEqual([
      ['svc', 'open'],
      ['svc', 'half_open'],
      ['svc', 'closed'],
    ]);
  });

  it('a failed probe opens it again for another period', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const policies = createToolPolicies();
    const { tool, outcomes, state } = scripted('flaky', {
      retries: 0,
      breaker: { failures: 2, openMs: 1_000 },
    });
    const env = envFor([tool], policies);
    outcomes.push('TIMEOUT', 'INTERNAL', 'SERVICE_UNAVAILABLE');
    await call(env, 'flaky');
    await call(env, 'flaky');
    await Promise.resolve();
    expect(policies.guardFor(tool).breakerState).toBe('open');
    vi.setSystemTime(Date.now() + 1_001);
    expect((await call(env, 'flaky')).error?.code).toBe('SERVICE_UNAVAILABLE'); // the probe fails
    expect(policies.guardFor(tool).breakerState).toBe('open');
    expect((await call(env, 'flaky')).status).toBe('rejected');
    expect(state.calls).toBe(3);
  });

  it('failures the model caused (invalid input, not found) do not count', async () => {
    const policies = createToolPolicies();
    const { tool, outcomes } = scripted('lookup', { retries: 0 });
    const env = envFor([tool], policies);
    outcomes.push('NOT_FOUND', 'INVALID_PARAMETER', 'NOT_FOUND', 'INVALID_PARAMETER');
    for (let i = 0; i < 4; i++) await call(env, 'lookup');
    await call(env, 'lookup', { extra: 1 }); // refused by the schema: never reaches the tool
    await Promise.resolve();
    expect(policies.guardFor(tool).breakerState).toBe('closed');
  });
});

describe('retries (read-only tools only)', () => {
  it('retries transient failures with backoff and reports the attempts', async () => {
    const reports: ToolCallReport[] = [];
    const policies = createToolPolicies({ onCall: (r) => reports.push(r) });
    const { tool, outcomes, state } = scripted('read');
    outcomes.push('SERVICE_UNAVAILABLE', 'RATE_LIMITED');
    const observation = await call(envFor([tool], policies), 'read');
    expect(observation).toMatchObject({ status: 'ok', attempts: 3 });
    expect(state.calls).toBe(3);
    expect(reports).toEqual([{ tool: 'read', status: 'ok', durationMs: expect.any(Number), attempts: 3 }]);
    expect(reports[0]?.durationMs).toBeGreaterThanOrEqual(150); // the two backoffs: ≥ 50 and ≥ 100 ms
  });

  it('gives up after `retries` and does not retry a timeout or a non-transient code', async () => {
    const policies = createToolPolicies();
    const { tool, outcomes, state } = scripted('read', { retries: 1 });
    outcomes.push('SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE');
    expect(await call(envFor([tool], policies), 'read')).toMatchObject({ status: 'error', attempts: 2 });
    expect(state.calls).toBe(2);
    const { tool: other, outcomes: o2, state: s2 } = scripted('other');
    o2.push('NOT_FOUND');
    await call(envFor([other], policies), 'other');
    expect(s2.calls).toBe(1);
  });

  it('never retries a tool that changes something', async () => {
    const policies = createToolPolicies();
    const { tool, outcomes, state } = scripted('write', undefined, { readOnly: false });
    outcomes.push('SERVICE_UNAVAILABLE');
    expect(policies.policyOf(tool).retries).toBe(0);
    await call(envFor([tool], policies), 'write');
    expect(state.calls).toBe(1);
  });

  it('stops retrying when the run is aborted during the backoff', async () => {
    const policies = createToolPolicies();
    const { tool, outcomes, state } = scripted('read', { retries: 5 });
    outcomes.push(...Array<ErrorCode>(6).fill('SERVICE_UNAVAILABLE'));
    const controller = new AbortController();
    const pending = call(envFor([tool], policies, controller.signal), 'read');
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new DOMException('cancelled', 'AbortError'));
    const observation = await pending;
    expect(observation.error?.code).toBe('CANCELLED');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(state.calls).toBe(1);
  });

  it('all attempts share the tool timeout: no retry starts that the budget cannot hold', async () => {
    const policies = createToolPolicies();
    const { tool, outcomes, state } = scripted('read', { retries: 10 }, { timeoutMs: 150 });
    outcomes.push(...Array<ErrorCode>(11).fill('SERVICE_UNAVAILABLE'));
    const started = Date.now();
    const observation = await call(envFor([tool], policies), 'read');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(observation.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(state.calls).toBeLessThan(4);
  });
});

describe('concurrency cap', () => {
  it('refuses a call over the cap without making it (RATE_LIMITED)', async () => {
    const policies = createToolPolicies();
    let running = 0;
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      input: z.object({ i: z.number() }),
      output: z.object({ i: z.number() }),
      readOnly: true,
      policy: { concurrency: 2, retries: 0 },
      run: async ({ i }) => {
        running++;
        await new Promise((resolve) => setTimeout(resolve, 30));
        running--;
        return { i };
      },
    });
    const env = envFor([slow], policies);
    const results = await Promise.all([0, 1, 2].map((i) => call(env, 'slow', { i })));
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'rejected']);
    expect(results[2]?.error?.code).toBe('RATE_LIMITED');
    expect(running).toBe(0);
  });
});

describe('fallbacks', () => {
  it('a failing tool is answered by its fallback, labeled degraded in the observation and the answer', async () => {
    const policies = createToolPolicies();
    const backup = scripted('ocr_local');
    const primary = scripted(
      'ocr_cloud',
      { retries: 0 },
      {
        fallback: { tool: 'ocr_local', lost: 'handwriting is not recognized' },
      },
    );
    primary.outcomes.push('SERVICE_UNAVAILABLE');
    const run = runAgent({
      query: 'read this',
      model: scriptModel([act('ocr_cloud', {}), final('done, but degraded')]),
      tools: [primary.tool, backup.tool],
      policies,
    });
    const record = await run.result;
    const observe = record.steps.find((s) => s.phase === 'observe')?.detail.observation;
    expect(observe).toMatchObject({
      status: 'ok',
      tool: 'ocr_cloud',
      source: 'tool:ocr_local',
      result: { from: 'ocr_local' },
      degraded: {
        tool: 'ocr_cloud',
        fallback: 'ocr_local',
        reason: { code: 'SERVICE_UNAVAILABLE' },
        lost: 'handwriting is not recognized',
      },
    });
    expect(record.degraded).toEqual([expect.objectContaining({ lost: 'handwriting is not recognized' })]);
    const message = run.events.find((e) => e.type === 'message');
    expect(message).toMatchObject({ degraded: [{ fallback: 'ocr_local' }] });
  });

  it('an open breaker goes straight to the fallback; the primary is not called', async () => {
    const policies = createToolPolicies();
    const backup = scripted('backup');
    const primary = scripted(
      'primary',
      { retries: 0, breaker: { failures: 1 } },
      {
        fallback: { tool: 'backup', lost: 'less detail' },
      },
    );
    primary.outcomes.push('TIMEOUT');
    const env = envFor([primary.tool, backup.tool], policies);
    expect((await call(env, 'primary')).degraded?.reason.code).toBe('TIMEOUT');
    await Promise.resolve();
    const second = await call(env, 'primary');
    expect(second).toMatchObject({ status: 'ok', degraded: { reason: { code: 'SERVICE_UNAVAILABLE' } } });
    expect(primary.state.calls).toBe(1);
    expect(backup.state.calls).toBe(2);
  });

  it('no fallback: an explained failure, never an invented result', async () => {
    const { tool, outcomes } = scripted('alone', { retries: 0 });
    outcomes.push('SERVICE_UNAVAILABLE');
    const observation = await call(envFor([tool], createToolPolicies()), 'alone');
    expect(observation).toMatchObject({ status: 'error', error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(observation.result).toBeUndefined();
    expect(observation.degraded).toBeUndefined();
  });

  it('a wrong input is not a reason to fall back', async () => {
    const backup = scripted('backup');
    const primary = scripted('primary', { retries: 0 }, { fallback: { tool: 'backup', lost: 'x' } });
    primary.outcomes.push('INVALID_PARAMETER');
    const observation = await call(envFor([primary.tool, backup.tool], createToolPolicies()), 'primary');
    expect(observation.error?.code).toBe('INVALID_PARAMETER');
    expect(backup.state.calls).toBe(0);
  });
});

describe('errors as data', () => {
  it('NOT_FOUND and PERMISSION_DENIED look the same to the model', async () => {
    const policies = createToolPolicies();
    const { tool, outcomes } = scripted('recipe');
    outcomes.push('NOT_FOUND', 'PERMISSION_DENIED');
    const env = envFor([tool], policies);
    const missing = await call(env, 'recipe', { q: 'a' });
    const foreign = await call(env, 'recipe', { q: 'b' });
    expect(missing.error).toEqual(foreign.error);
    expect(missing.error).toEqual({ code: 'NOT_FOUND', message: 'recipe: not found', layer: 'status' });
  });

  it('policy overrides by tool name take precedence over the tool', () => {
    const policies = createToolPolicies({
      overrides: { svc: { retries: 0, breaker: false, concurrency: 3 } },
    });
    const { tool } = scripted('svc', { retries: 4 });
    expect(policies.policyOf(tool)).toEqual({ retries: 0, breaker: false, concurrency: 3 });
    expect(() => createToolPolicies({ overrides: { x: { retries: -1 } } })).toThrow(/retries/);
    expect(() => scripted('bad', { concurrency: 0 })).toThrow(/concurrency/);
  });
});
