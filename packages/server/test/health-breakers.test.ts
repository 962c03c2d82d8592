import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError, createToolPolicies, defineTool } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, as, final, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('/health lists the tools’ breakers', () => {
  it('runs use the server’s policies; an open breaker makes /health degraded and names the tool', async () => {
    const flaky = defineTool({
      name: 'flaky_lookup',
      description: 'always down',
      input: z.object({ q: z.string() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      policy: { retries: 0, breaker: { failures: 1, openMs: 60_000 } },
      run: () => {
        throw new ToolError('SERVICE_UNAVAILABLE', 'backend down');
      },
    });
    const policies = createToolPolicies();
    const model = scriptModel([act('flaky_lookup', { q: 'x' }), final('sorry')]);
    running = await start({ agents: { chat: { model, tools: [flaky] } }, policies });
    const healthy = (await (await fetch(`${running.url}/health`)).json()) as {
      status: string;
      checks: Record<string, { status: string; tools?: Record<string, string> }>;
    };
    expect(healthy.checks.breakers).toMatchObject({ status: 'up', tools: { flaky_lookup: 'closed' } });

    const response = await fetch(`${running.url}/v1/runs`, {
      method: 'POST',
      headers: { ...as('u1'), 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'chat', input: 'look it up' }),
    });
    await response.json();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(policies.guardFor(flaky).breakerState).toBe('open');
    const health = (await (await fetch(`${running.url}/health`)).json()) as typeof healthy;
    expect(health.status).toBe('degraded');
    expect(health.checks.breakers).toMatchObject({ status: 'down', tools: { flaky_lookup: 'open' } });
  });
});
