import { describe, expect, it } from 'vitest';
import {
  createToolPolicies,
  executeAction,
  memoryBreakerStore,
  type ActEnv,
  type BreakerState,
  type ToolPolicies,
} from 'reins';
import { z } from 'zod';
import { ToolError, defineTool } from 'reins';
import { actEnv } from './helpers.js';

// Issue 16.15: after a storm, a breaker whose dependency is back must close by itself — the
// half-open probe happens when the open period ends, not at some user's next call.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tool over a dependency that is `up` or not; its probe asks the same dependency. */
function dependency(options: { failures?: number; openMs?: number; probeThrows?: boolean } = {}) {
  const state = { up: false, calls: 0, probes: 0 };
  const probe = () => {
    state.probes++;
    if (options.probeThrows === true) throw new Error('probe exploded');
    return state.up;
  };
  const tool = defineTool({
    name: 'svc',
    description: 'svc',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    policy: { retries: 0, breaker: { failures: options.failures ?? 2, openMs: options.openMs ?? 80, probe } },
    run: () => {
      state.calls++;
      if (!state.up) throw new ToolError('SERVICE_UNAVAILABLE', 'down');
      return { ok: true };
    },
  });
  return { tool, state };
}

let n = 0;
const call = (env: ActEnv) => executeAction({ actId: `act-${++n}`, tool: 'svc', input: {} }, env);

async function until(what: string, ok: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(10);
  }
}

describe.each([
  ['in process (cockatiel)', () => ({})],
  ['shared store', () => ({ breakers: memoryBreakerStore() })],
] as const)('breaker probe: %s', (_name, extra) => {
  function setUp() {
    const transitions: BreakerState[] = [];
    const policies: ToolPolicies = createToolPolicies({
      ...extra(),
      onBreaker: (_tool, state) => transitions.push(state),
    });
    const dep = dependency();
    return { policies, transitions, ...dep, env: actEnv([dep.tool], policies) };
  }

  it('closes by itself once the dependency is back, with no user call', async () => {
    const { policies, tool, state, env } = setUp();
    await call(env);
    await call(env);
    await until('open', () => policies.guardFor(tool).breakerState === 'open');
    state.up = true;
    await until('closed by the probe', () => policies.guardFor(tool).breakerState === 'closed');
    expect(state.calls).toBe(2); // no user call was spent on it
    expect(state.probes).toBe(1);
    expect((await call(env)).status).toBe('ok');
  });

  it('a failing probe keeps it open another period, then probes again', async () => {
    const { policies, tool, state, env } = setUp();
    await call(env);
    await call(env);
    await until('first probe', () => state.probes >= 1);
    expect(policies.guardFor(tool).breakerState).toBe('open');
    expect((await call(env)).status).toBe('rejected'); // still open: not called
    expect(state.calls).toBe(2);
    state.up = true;
    await until('closed after a later probe', () => policies.guardFor(tool).breakerState === 'closed');
    expect(state.probes).toBeGreaterThanOrEqual(2);
  });

  it('a probe that throws counts as a failed probe', async () => {
    const policies = createToolPolicies(extra());
    const { tool, state } = dependency({ failures: 1, openMs: 60, probeThrows: true });
    const env = actEnv([tool], policies);
    await call(env);
    state.up = true; // the dependency answers now, but its probe throws: a failed probe all the same
    await until('two probes', () => state.probes >= 2);
    expect(policies.guardFor(tool).breakerState).toBe('open');
  });
});

it('a probe that is not a function is a programmer error', () => {
  expect(() =>
    createToolPolicies({ overrides: { svc: { breaker: { probe: 'yes' as unknown as () => boolean } } } }),
  ).toThrow(/policy.breaker.probe must be a function/);
});
