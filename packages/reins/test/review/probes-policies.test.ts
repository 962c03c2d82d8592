import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError, createToolPolicies, defineTool, executeAction, runAgent, type ActEnv } from 'reins';
import { scriptModel } from 'reins/testing';
import { actEnv, act, final } from '../helpers.js';

const envFor = actEnv;
let n = 0;
const call = (env: ActEnv, tool: string, input: Record<string, unknown> = {}) =>
  executeAction({ actId: `act-${++n}`, tool, input }, env);

describe('review probes: tool policies', () => {
  it('P1: a healthy tool whose runs hit their deadline does not open its breaker for every other run', async () => {
    const policies = createToolPolicies();
    const slow = defineTool({
      name: 'slow',
      description: 's',
      input: z.object({ q: z.number() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      timeoutMs: 200, // answers in 60 ms, well within its own timeout
      run: async () => {
        await new Promise((r) => setTimeout(r, 60));
        return { ok: true };
      },
    });
    // Three runs whose deadline (400 ms) passes while the healthy tool works (the model took 350 ms).
    for (let i = 0; i < 3; i++) {
      const run = runAgent({
        query: 'q',
        model: scriptModel([{ text: act('slow', { q: i }), delayMs: 350 }, final('x')]),
        tools: [slow],
        policies,
        limits: { deadlineMs: 400, modelTimeoutMs: 390 },
      });
      const record = await run.result;
      expect(record.stop_reason).toBe('deadline');
    }
    expect(policies.guardFor(slow).breakerState).toBe('closed');
  });

  it('P2: a half-open probe cut short by the run being cancelled does not close the breaker', async () => {
    const policies = createToolPolicies();
    const fail = true;
    const flaky = defineTool({
      name: 'flaky',
      description: 'f',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      policy: { retries: 0, breaker: { failures: 1, openMs: 20 } },
      run: async (_i, ctx) => {
        await new Promise((r, j) => {
          const t = setTimeout(r, 50);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            j(new Error('aborted'));
          });
        });
        if (fail) throw new ToolError('SERVICE_UNAVAILABLE', 'down');
        return { ok: true };
      },
    });
    await call(envFor([flaky], policies), 'flaky'); // opens
    expect(policies.guardFor(flaky).breakerState).toBe('open');
    await new Promise((r) => setTimeout(r, 30)); // half-open now
    const controller = new AbortController();
    const probe = call(envFor([flaky], policies, controller.signal), 'flaky');
    setTimeout(() => controller.abort(), 5);
    expect((await probe).error?.code).toBe('CANCELLED');
    // The tool is still failing, nothing showed it healthy: the breaker must not be closed.
    expect(policies.guardFor(flaky).breakerState).not.toBe('closed');
  });
});
