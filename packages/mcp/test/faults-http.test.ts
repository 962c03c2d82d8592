import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from 'reins';
import { connectMcp, type ConnectMcpOptions, type McpBridge } from '@reins/mcp';
import { invoke, timed, tool, until } from './helpers.js';
import { startHttpFaultServer, type HttpFaultServer } from './support/http-fault-server.js';

const codeOf = (value: unknown): string | undefined => (value instanceof ToolError ? value.code : undefined);

describe.each([
  { protocol: 'auto', revision: '2026-07-28' },
  { protocol: 'legacy', revision: '2025-11-25' },
] as const)('MCP client bridge over Streamable HTTP, faults ($revision)', ({ protocol, revision }) => {
  let server: HttpFaultServer;
  const open: McpBridge[] = [];

  beforeAll(async () => {
    server = await startHttpFaultServer();
  });
  afterAll(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
    await server.close();
  });

  async function connect(options: Partial<ConnectMcpOptions> = {}): Promise<McpBridge> {
    const bridge = await connectMcp({
      name: 'http-fixture',
      transport: { kind: 'http', url: server.url },
      protocol,
      ...options,
    });
    open.push(bridge);
    return bridge;
  }

  it('connects and calls', async () => {
    const bridge = await connect();
    expect(bridge.status()).toMatchObject({ status: 'up', protocolVersion: revision });
    expect(await invoke(tool(bridge, 'echo'), { text: 'hi' })).toBe('hi');
  });

  it('mirrors x-mcp-header arguments into Mcp-Param-* headers on 2026-07-28 (SEP-2243)', async () => {
    const bridge = await connect();
    server.callHeaders.length = 0;
    expect(await invoke(tool(bridge, 'region'), { region: 'us-west1', note: 'n' })).toBe('us-west1');
    // At the first attempt: without the schema the SDK sends none, the server refuses the call
    // (HEADER_MISMATCH) and the SDK re-lists and retries; a server that does not check would
    // never see them.
    expect(server.callHeaders).toEqual(
      revision === '2026-07-28' ? [{ 'mcp-param-region': 'us-west1' }] : [{}],
    );
  });

  it('a server killed mid-call fails the call fast, and the next call works once it is back', async () => {
    const bridge = await connect({ callTimeoutMs: 8_000, reconnect: { initialDelayMs: 50, maxAttempts: 8 } });
    const pending = timed(invoke(tool(bridge, 'slow'), { ms: 5_000 }));
    setTimeout(() => void server.kill(), 150);
    const { value, ms } = await pending;
    expect(codeOf(value)).toBe('SERVICE_UNAVAILABLE');
    expect((value as ToolError).details).toMatchObject({ transport: true });
    expect(ms).toBeLessThan(2_000);
    await server.restart();
    await until(() => bridge.status().status === 'up'); // reconnected in the background
    expect(await invoke(tool(bridge, 'echo'), { text: 'back' })).toBe('back');
    expect(bridge.status()).toMatchObject({ status: 'up' });
  });

  it('a server that never answers times out at the per-call timeout, without hanging', async () => {
    const bridge = await connect({ callTimeoutMs: 400 });
    const { value, ms } = await timed(invoke(tool(bridge, 'hang'), {}));
    expect(codeOf(value)).toBe('TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(1_500);
    expect(await invoke(tool(bridge, 'echo'), { text: 'still here' })).toBe('still here');
  });

  it('a response stream cut mid-call is an error observation, and the next call works', async () => {
    const bridge = await connect({ callTimeoutMs: 8_000, reconnect: { initialDelayMs: 50 } });
    const { value, ms } = await timed(invoke(tool(bridge, 'drop'), {}));
    expect(value).toBeInstanceOf(ToolError);
    expect(codeOf(value)).toBe('SERVICE_UNAVAILABLE');
    expect(ms).toBeLessThan(2_000);
    expect(await invoke(tool(bridge, 'echo'), { text: 'next' })).toBe('next');
  });

  it('a call made while the server is down fails at once; after it is back, calls work again', async () => {
    const bridge = await connect({
      toolTimeoutMs: 20_000,
      reconnect: { initialDelayMs: 100, maxDelayMs: 300, maxAttempts: 1_000 },
    });
    const echo = tool(bridge, 'echo');
    await server.kill();
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(invoke(echo, { text: 'anyone?' }));
      expect(codeOf(value)).toBe('SERVICE_UNAVAILABLE');
      expect(ms).toBeLessThan(3_000); // at most a refused connection attempt, never the 20 s tool timeout
    }
    expect(bridge.status().status).not.toBe('up');
    await server.restart();
    await until(() => bridge.status().status === 'up', 5_000);
    expect(await invoke(echo, { text: 'back' })).toBe('back');
  });
});
