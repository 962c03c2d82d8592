import { request as httpRequest } from 'node:http';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type RunningHttpServer } from '../src/http/start-http.js';
import { exerciseNutritionTools, newClient, type Negotiation } from './support/mcp-client.js';

let server: RunningHttpServer;

beforeAll(async () => {
  server = await startHttp({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

/** A raw request, so the Host header can be anything (fetch would not let a test set it). */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.url}${path}`,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('nutrition MCP over Streamable HTTP (127.0.0.1, port 0)', () => {
  it('listens on 127.0.0.1 by default', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it.each<[Negotiation, string]>([
    ['auto', 'modern'],
    ['legacy', 'legacy'],
  ])('serves the tools to a client negotiating "%s" (era %s)', async (mode, era) => {
    const client = newClient(mode);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      expect(client.getProtocolEra()).toBe(era);
      await exerciseNutritionTools(client);
    } finally {
      await client.close();
    }
  });

  it('answers GET /health with status, version, foods loaded and the cache', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      name: 'reins-nutrition',
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      foods: 542,
      cache: { backend: 'memory', state: 'ready' },
    });
  });

  it('answers malformed JSON with a JSON-RPC -32700 parse error body', async () => {
    const res = await raw('/mcp', { method: 'POST', headers: mcpHeaders, body: '{"jsonrpc":"2.0",' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('refuses a body over the cap with 413, before parsing it', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { pad: 'x'.repeat(70_000) } });
    const res = await raw('/mcp', { method: 'POST', headers: mcpHeaders, body });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: -32600 } });
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding) with 403', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const origin = await raw('/mcp', {
      method: 'POST',
      headers: { ...mcpHeaders, origin: 'https://evil.example' },
      body: ping,
    });
    expect(origin.status).toBe(403);
    const host = await raw('/mcp', {
      method: 'POST',
      headers: { ...mcpHeaders, host: 'evil.example' },
      body: ping,
    });
    expect(host.status).toBe(403);
    expect((await raw('/health', { headers: { host: 'evil.example:80' } })).status).toBe(403);
    // the same request from a local origin passes the guard
    const local = await raw('/health', { headers: { origin: `http://localhost:${server.port}` } });
    expect(local.status).toBe(200);
  });

  it('answers an unknown path with a 404 carrying a code', async () => {
    const res = await raw('/nope', {});
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
