// The concurrency cap counts calls running at the same time: a call abandoned at its timeout
// or a cancel keeps its place until the tool's own promise settles (found in review: it freed
// its place at once, so against a hung dependency every timeout let one more call start).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ToolError,
  createToolPolicies,
  defineTool,
  executeAction,
  memoryBreakerStore,
  type ActEnv,
} from 'reins';
import { actEnv } from './helpers.js';

let n = 0;
const call = (env: ActEnv, tool: string, input: Record<string, unknown> = {}) =>
  executeAction({ actId: `cap-${++n}`, tool, input }, env);
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

const makers = [
  ['no breaker', false, () => createToolPolicies()],
  ['local breaker', undefined, () => createToolPolicies()],
  ['shared breaker', undefined, () => createToolPolicies({ breakers: memoryBreakerStore() })],
] as const;

function gated(breaker: false | undefined, retries = 0, timeoutMs = 20) {
  const gates: { release: () => void; fail: () => void }[] = [];
  const state = { started: 0, script: [] as ('unavailable' | 'hang' | 'ok')[] };
  const tool = defineTool({
    name: 'gated',
    description: 'gated',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    timeoutMs,
    policy: { concurrency: 1, retries, ...(breaker === false ? { breaker } : {}) },
    run: async () => {
      state.started++;
      const next = state.script.shift() ?? 'ok';
      if (next === 'unavailable') throw new ToolError('SERVICE_UNAVAILABLE', 'blip');
      if (next === 'hang') {
        await new Promise<void>((resolve, reject) =>
          gates.push({ release: resolve, fail: () => reject(new Error('late failure')) }),
        );
      }
      return { ok: true };
    },
  });
  return { tool, gates, state };
}

/** A capped tool, and one call of it abandoned at its timeout while the tool still runs. */
async function abandonedCall(breaker: false | undefined, make: () => ReturnType<typeof createToolPolicies>) {
  const capped = gated(breaker);
  const env = actEnv([capped.tool], make());
  capped.state.script.push('hang');
  expect((await call(env, 'gated')).status).toBe('timeout');
  return { ...capped, env };
}

describe('cap held by an abandoned call', () => {
  it.each(makers)(
    'a call abandoned at its timeout keeps its place until the tool settles (%s)',
    async (_, breaker, make) => {
      const { env, gates, state } = await abandonedCall(breaker, make);
      await tick(5); // anything the timeout settles has settled
      const second = await call(env, 'gated');
      expect(second.status).toBe('rejected');
      expect(second.error?.code).toBe('RATE_LIMITED');
      expect(state.started).toBe(1); // not made
      gates[0]!.release(); // the abandoned call ends: its place is free again
      await tick(5);
      expect(await call(env, 'gated')).toMatchObject({ status: 'ok', result: { ok: true } });
      expect(state.started).toBe(2);
    },
  );

  it.each(makers)(
    'run cancel (not timeout) holds the slot until the tool settles (%s)',
    async (_, breaker, make) => {
      const { tool, gates, state } = gated(breaker, 0, 1_000);
      const policies = make();
      const ctl = new AbortController();
      state.script.push('hang');
      const first = call(actEnv([tool], policies, ctl.signal), 'gated');
      await tick(5);
      ctl.abort(new Error('cancelled'));
      const r1 = await first;
      expect(r1.status).not.toBe('ok');
      const env = actEnv([tool], policies);
      expect((await call(env, 'gated')).error?.code).toBe('RATE_LIMITED');
      gates[0]!.release();
      await tick(5);
      expect(await call(env, 'gated')).toMatchObject({ status: 'ok' });
      expect(state.started).toBe(2);
    },
  );

  it.each(makers)(
    'retry then timeout holds the slot of the hung retry, then frees it (%s)',
    async (_, breaker, make) => {
      // Retries back off 50–100 ms: a budget of 400 ms holds one retry, also on a busy machine.
      const { tool, gates, state } = gated(breaker, 2, 400);
      const policies = make();
      const env = actEnv([tool], policies);
      state.script.push('unavailable', 'hang');
      const r1 = await call(env, 'gated');
      expect(r1.status).toBe('timeout');
      expect(state.started).toBe(2);
      expect((await call(env, 'gated')).error?.code).toBe('RATE_LIMITED');
      gates[0]!.release();
      await tick(5);
      expect(await call(env, 'gated')).toMatchObject({ status: 'ok' });
    },
    5_000,
  );

  it.each(makers)(
    'abandoned tool rejecting later: no unhandled rejection, slot freed (%s)',
    async (_, breaker, make) => {
      const { env, gates } = await abandonedCall(breaker, make);
      gates[0]!.fail();
      await tick(10);
      expect(unhandled).toEqual([]);
      expect(await call(env, 'gated')).toMatchObject({ status: 'ok' });
    },
  );

  it.each(makers)(
    "a refused call (cap full) does not release the holder's slot (%s)",
    async (_, breaker, make) => {
      const { env, gates, state } = await abandonedCall(breaker, make);
      for (let i = 0; i < 3; i++) expect((await call(env, 'gated')).error?.code).toBe('RATE_LIMITED');
      gates[0]!.release();
      await tick(5);
      state.script.push('hang');
      expect((await call(env, 'gated')).status).toBe('timeout');
      expect((await call(env, 'gated')).error?.code).toBe('RATE_LIMITED');
      gates[1]!.release();
      await tick(5);
      expect(await call(env, 'gated')).toMatchObject({ status: 'ok' });
    },
  );

  // Found in review: the cap's wait called `then` a second time on what the tool returned, and
  // a lazy thenable (a query builder such as drizzle's or knex's) runs its query at each `then`.
  it('an abandoned lazy thenable runs once: the cap waits on the same promise', async () => {
    let executions = 0;
    const lazyQuery = (): PromiseLike<{ ok: boolean }> => ({
      then: (onOk, onErr) =>
        (async () => {
          executions++;
          await new Promise((resolve) => setTimeout(resolve, 30));
          return { ok: true };
        })().then(onOk, onErr),
    });
    const query = defineTool({
      name: 'query',
      description: 'returns a lazy query',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      timeoutMs: 10,
      policy: { concurrency: 1, retries: 0, breaker: false },
      run: () => lazyQuery() as Promise<{ ok: boolean }>,
    });
    const env = actEnv([query], createToolPolicies());
    expect((await call(env, 'query')).status).toBe('timeout');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(executions).toBe(1);
  });

  it('a tool that honours its signal frees its place when stopped', async () => {
    const policies = createToolPolicies();
    const polite = defineTool({
      name: 'polite',
      description: 'stops when its signal aborts',
      input: z.object({ wait: z.boolean() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      timeoutMs: 20,
      policy: { concurrency: 1, retries: 0, breaker: false },
      run: async ({ wait }, ctx) => {
        if (wait) {
          await new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
          );
        }
        return { ok: true };
      },
    });
    const env = actEnv([polite], policies);
    expect((await call(env, 'polite', { wait: true })).status).toBe('timeout');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await call(env, 'polite', { wait: false })).toMatchObject({ status: 'ok' });
  });
});
