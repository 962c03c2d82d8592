import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeConfig, readConfig } from '../src/cli/config.js';
import { main } from '../src/cli/main.js';
import { startHttp, type RunningHttpServer } from '../src/http/start-http.js';
import { exerciseNutritionTools, newClient, type Negotiation } from './support/mcp-client.js';

// Issue 16.5: bound beyond loopback, the nutrition server needs NUTRITION_MCP_TOKEN, and with
// a token every /mcp request must carry it. (Servers here bind 127.0.0.1 only: the
// non-loopback cases are refused before anything listens.)
const TOKEN = 'nutrition-test-token-0123456789';

let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.restoreAllMocks();
});

describe('NUTRITION_MCP_TOKEN at start-up', () => {
  it.each(['0.0.0.0', '::', '192.168.1.20', 'kitchen.example'])(
    'refuses --http --host %s without a token, naming the variable',
    (host) => {
      const outcome = readConfig(['--http', '--host', host], {});
      expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
      expect(!outcome.ok && outcome.error.message).toMatch(
        /reachable from other machines: set NUTRITION_MCP_TOKEN/,
      );
      expect(readConfig(['--http', '--host', host], { NUTRITION_MCP_TOKEN: TOKEN })).toMatchObject({
        ok: true,
        config: { host, token: TOKEN },
      });
    },
  );

  it.each(['127.0.0.1', '::1', 'localhost'])('needs no token on loopback (%s)', (host) => {
    expect(readConfig(['--http', '--host', host], {})).toMatchObject({
      ok: true,
      config: { token: undefined },
    });
  });

  it.each(['short', 'has space in it 0123456789', 'ünïcode-token-0123456789'])(
    'refuses the token %j',
    (token) => {
      expect(readConfig(['--http'], { NUTRITION_MCP_TOKEN: token })).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining('NUTRITION_MCP_TOKEN must be') },
      });
    },
  );

  it('the command exits 2 before listening; startHttp refuses too', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
    expect(await main(['--http', '--host', '0.0.0.0', '--port', '0'], {})).toBe(2);
    expect(errors.join('\n')).toMatch(/NUTRITION_MCP_TOKEN/);
    await expect(startHttp({ host: '0.0.0.0', port: 0 })).rejects.toThrow(/NUTRITION_MCP_TOKEN/);
  });

  it('never prints the token', () => {
    const outcome = readConfig(['--http', '--host', '0.0.0.0'], { NUTRITION_MCP_TOKEN: TOKEN });
    if (!outcome.ok) throw new Error('config');
    expect(outcome.config.token).toBe(TOKEN);
    expect(describeConfig(outcome.config)).toContain('bearer token required');
    expect(describeConfig(outcome.config)).not.toContain(TOKEN);
  });
});

describe('with a token, /mcp requires Authorization: Bearer <token>', () => {
  const initialize = (authorization?: string) =>
    fetch(`${server?.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      }),
    });

  it('answers 401 with a JSON-RPC body to a request without it or with another token', async () => {
    server = await startHttp({ port: 0, token: TOKEN });
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN, 'Bearer ']) {
      const res = await initialize(authorization);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
    }
    const ok = await initialize(`Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    await ok.text();
    expect((await fetch(`${server.url}/health`)).status).toBe(200); // probes need no token
  });

  it.each<Negotiation>(['auto', 'legacy'])('serves a client that sends it (%s)', async (mode) => {
    server = await startHttp({ port: 0, token: TOKEN });
    const client = newClient(mode);
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    await client.connect(transport);
    try {
      await exerciseNutritionTools(client);
    } finally {
      await client.close();
    }
  });
});
