import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ToolError,
  createToolPolicies,
  defineTool,
  executeAction,
  memoryBreakerStore,
  runAgent,
  type BreakerState,
  type BreakerStore,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { actEnv } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function counted(
  name: string,
  extra: { timeoutMs?: number; fail?: () => boolean; probe?: () => boolean } = {},
) {
  const seen = { runs: 0 };
  const tool = defineTool({
    name,
    description: name,
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    ...(extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs }),
    policy: {
      retries: 0,
      breaker: { failures: 1, openMs: 50, ...(extra.probe === undefined ? {} : { probe: extra.probe }) },
    },
    run: () => {
      seen.runs++;
      if (extra.fail?.() === true) throw new ToolError('SERVICE_UNAVAILABLE', 'down');
      return { ok: true };
    },
  });
  return { tool, seen };
}

describe('tool guard with a shared breaker store: stops and store failures (found in review)', () => {
  // Contract: per-tool timeout — "the tool's ctx.signal aborts; the observation is timeout /
  // TIMEOUT; the loop goes on" (docs/runtime.md:299), and executeAction "runs under its timeout"
  // and "never throws: every outcome is an Observation" (execute-action.ts:21-26).
  // The breaker store's `admit` is awaited outside the act's race (shared-breaker.ts:27,
  // tool-policies.ts:188-190), so a store that does not answer holds the act past its timeout.
  it('ends the act at its timeout even when the breaker store does not answer', async () => {
    const hung: BreakerStore = {
      admit: () => new Promise(() => undefined),
      record: async () => 'closed',
    };
    const { tool } = counted('slowstore', { timeoutMs: 50 });
    const env = actEnv([tool], createToolPolicies({ breakers: hung }));
    const observation = executeAction({ actId: 'a1', tool: 'slowstore', input: {} }, env);
    const outcome = await Promise.race([observation, sleep(1_000).then(() => 'still waiting after 1 s')]);
    expect(outcome).toMatchObject({ status: 'timeout' });
  });

  // Contract: `signal` / `run.cancel()` — "no model or tool call starts afterwards, in-flight ones
  // are aborted" (docs/runtime.md:300). A call whose breaker-store admission is still pending
  // when the run is cancelled still runs the tool once admission arrives (shared-breaker.ts:27-36
  // calls `attempt()` without looking at the act's stop).
  it('does not start the tool after the run was cancelled while the store was admitting it', async () => {
    const inner = memoryBreakerStore();
    const slow: BreakerStore = {
      admit: async (tool, settings) => {
        await sleep(100);
        return inner.admit(tool, settings);
      },
      record: (...args) => inner.record(...args),
    };
    const { tool, seen } = counted('late');
    const controller = new AbortController();
    const env = actEnv([tool], createToolPolicies({ breakers: slow }), controller.signal);
    const observation = executeAction({ actId: 'a2', tool: 'late', input: {} }, env);
    await sleep(10);
    controller.abort();
    await observation;
    await sleep(150);
    expect(seen.runs).toBe(0);
  });

  // Contract: "the guard runs it [breaker.probe] by itself as the half-open probe when the open
  // period ends (true: closed; false or a throw: open another period, then again)"
  // (docs/reliability.md:33-40). In SharedBreaker#scheduleProbe (shared-breaker.ts:63-77) an
  // `admit` that rejects once (a Redis blip) leaves `#probing` true forever: no probe is ever
  // scheduled again, and the breaker stays open until a user call happens to probe it.
  it('keeps probing after one failed store admission during the probe', async () => {
    const inner = memoryBreakerStore();
    let blip = false;
    const flaky: BreakerStore = {
      admit: async (tool, settings) => {
        if (blip) {
          blip = false;
          throw new Error('store unreachable');
        }
        return inner.admit(tool, settings);
      },
      record: (...args) => inner.record(...args),
    };
    const dep = { up: false, probes: 0 };
    const { tool } = counted('flaky', {
      fail: () => !dep.up,
      probe: () => {
        dep.probes++;
        return dep.up;
      },
    });
    const transitions: BreakerState[] = [];
    const policies = createToolPolicies({ breakers: flaky, onBreaker: (_t, s) => transitions.push(s) });
    const env = actEnv([tool], policies);
    await executeAction({ actId: 'a3', tool: 'flaky', input: {} }, env); // opens (failures: 1)
    expect(policies.guardFor(tool).breakerState).toBe('open');
    blip = true; // the probe's admission fails once
    dep.up = true;
    await sleep(600); // openMs 50: many probe periods
    expect(policies.guardFor(tool).breakerState).toBe('closed');
  });
});

// Found in review: a result whose `then` getter throws (a proxy) was looked at outside the
// tool's try, so the throw ended the whole run as an error instead of failing the one call.
describe('a tool result whose then getter throws', () => {
  it('is that call failing (INTERNAL), and the run goes on to its answer', async () => {
    const odd = defineTool({
      name: 'odd',
      description: 'Returns an odd object.',
      input: z.object({}),
      output: z.unknown(),
      readOnly: true,
      run: () =>
        new Proxy(
          {},
          {
            get(_target, key) {
              if (key === 'then') throw new Error('no then here');
              return undefined;
            },
          },
        ),
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([
        JSON.stringify({ thought: 't', action: 'odd', input: {} }),
        JSON.stringify({ thought: 't', final: 'done' }),
      ]),
      tools: [odd],
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    const observe = record.steps.find((s) => s.phase === 'observe');
    expect(observe?.detail).toMatchObject({ observation: { status: 'error', error: { code: 'INTERNAL' } } });
  });
});
