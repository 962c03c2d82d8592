import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from 'reins';
import {
  connectMcp,
  createMcpToolServer,
  startMcpHttp,
  type McpBridge,
  type RunningMcpHttp,
} from '@reins/mcp';
import { invoke, timed, tool } from './helpers.js';
import { kitchenTools } from './fixtures/kitchen-tools.mjs';

// The client bridge's `auth` option against our server bridge's bearer authentication. (OAuth
// flows run against the conformance suite's authorization servers: scripts/mcp-conformance.mjs.)
let running: RunningMcpHttp;
const open: McpBridge[] = [];
const tokens: Record<string, { id: string }> = { 'token-alice': { id: 'alice' } };

beforeAll(async () => {
  const { lookup } = kitchenTools();
  const server = createMcpToolServer({ name: 'kitchen', version: '0.0.1', tools: [lookup] });
  running = await startMcpHttp(server, { authenticate: (token) => tokens[token] });
});
afterAll(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
  await running.close();
});

async function connectWith(token: string, current = { token }): Promise<McpBridge> {
  const bridge = await connectMcp({
    name: 'kitchen',
    transport: {
      kind: 'http',
      url: `${running.url}/mcp`,
      auth: { provider: { token: async () => current.token } },
    },
    protocol: 'legacy',
    reconnect: { initialDelayMs: 5_000 }, // a refused connection must not wait for a backoff
  });
  open.push(bridge);
  return bridge;
}

describe('auth option (HTTP)', () => {
  it('sends the provider’s bearer token: the server maps it to the principal', async () => {
    const bridge = await connectWith('token-alice');
    expect(await invoke(tool(bridge, 'lookup_pantry'), { item: 'salt' })).toMatchObject({ owner: 'alice' });
  });

  it('refused credentials: connecting stops at once, and calls fail PERMISSION_DENIED (not an outage)', async () => {
    const { value: bridge, ms } = await timed(connectWith('token-mallory'));
    expect(ms).toBeLessThan(3_000);
    expect(bridge.status()).toMatchObject({ status: 'down' });
    expect(bridge.status().lastError).toMatch(/nauthori[sz]ed/);
    expect(bridge.tools()).toEqual([]);
  });

  it('a token refused mid-session fails the call with PERMISSION_DENIED', async () => {
    const current = { token: 'token-alice' };
    const bridge = await connectWith('token-alice', current);
    const lookup = tool(bridge, 'lookup_pantry');
    expect(await invoke(lookup, { item: 'salt' })).toMatchObject({ owner: 'alice' });
    current.token = 'token-revoked';
    const refused = await invoke(lookup, { item: 'salt' });
    expect(refused).toBeInstanceOf(ToolError);
    expect((refused as ToolError).code).toBe('PERMISSION_DENIED');
  });
});
