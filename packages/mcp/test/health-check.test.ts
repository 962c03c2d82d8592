import { afterAll, describe, expect, it } from 'vitest';
import {
  createToolPolicies,
  defaultDeps,
  executeAction,
  type ActEnv,
  type AnyTool,
  type ToolPolicies,
} from 'reins';
import { mcpHealthCheck } from '@reins/mcp';
import { bridges, tool } from './helpers.js';

const open = bridges();

/** How a run calls one tool under the app's policies. */
const envFor = (tool: AnyTool, policies: ToolPolicies): ActEnv => ({
  registry: new Map([[tool.name, tool]]),
  principal: { id: 'u1' },
  runId: 'r1',
  signal: new AbortController().signal,
  defaultTimeoutMs: 5_000,
  deps: defaultDeps,
  policies,
});
afterAll(() => open.closeAll());

describe('mcpHealthCheck: the MCP health table', () => {
  it('probes the server and lists each tool with its breaker; an open breaker makes it down', async () => {
    const bridge = await open.connect({ name: 'faulty' });
    const policies = createToolPolicies({ overrides: { fail: { retries: 0, breaker: { failures: 1 } } } });
    const check = mcpHealthCheck(bridge, policies);
    const healthy = await check();
    expect(healthy).toMatchObject({ status: 'up', server: 'faulty', state: 'up', tools: { fail: 'closed' } });
    expect(healthy.latencyMs).toBeGreaterThanOrEqual(0);

    const failing = tool(bridge, 'fail');
    const env = envFor(failing, policies);
    const observation = await executeAction(
      { actId: 'a1', tool: 'fail', input: { kind: 'unavailable' } },
      env,
    );
    expect(observation.status).not.toBe('ok');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const after = await check();
    expect(observation.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(after).toMatchObject({ status: 'down', state: 'up', tools: { fail: 'open' } });
    expect(after.detail).toContain('breaker not closed: fail');
  });

  it('a server that is gone is down, with the reason', async () => {
    const bridge = await open.connect({ name: 'gone' });
    await bridge.close();
    const report = await mcpHealthCheck(bridge)();
    expect(report.status).toBe('down');
    expect(report.detail).toMatch(/^server (down|connecting)/);
  });
});

describe('breakers of imported tools probe their server (issue 16.15)', () => {
  it('an open breaker closes by itself once its open period ends and the server answers tools/list', async () => {
    const bridge = await open.connect({ name: 'faulty' });
    const policies = createToolPolicies({
      overrides: { fail: { retries: 0, breaker: { failures: 1, openMs: 100 } } },
    });
    const check = mcpHealthCheck(bridge, policies);
    const failing = tool(bridge, 'fail');
    const env = envFor(failing, policies);
    await executeAction({ actId: 'a1', tool: 'fail', input: { kind: 'unavailable' } }, env);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await check()).tools).toMatchObject({ fail: 'open' });
    // No call of the tool: the breaker's own probe (tools/list) closes it.
    const deadline = Date.now() + 3_000;
    while (policies.guardFor(failing).breakerState !== 'closed' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await check()).toMatchObject({ status: 'up', tools: { fail: 'closed' } });
  });
});
