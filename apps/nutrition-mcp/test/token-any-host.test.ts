import { afterAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/http/http-app.js';
import { createNutritionService } from '../src/service/nutrition-service.js';

// Bound beyond loopback the server needs a token, and a client on another machine names it by
// its own address (`Host: 10.0.0.5:8788`). The Host allow-list stayed localhost-only whatever
// was bound, so every such request — with the right token, and /health too — was 403 "Invalid
// Host". With a token the Host check adds nothing (a page on a rebound name cannot present the
// token); the Origin check stays.
const TOKEN = 'nutrition-test-token-0123456789';
const service = createNutritionService();
afterAll(() => service.close());

const initialize = (headers: Record<string, string>): Request =>
  new Request('http://10.0.0.5:8788/mcp', {
    method: 'POST',
    headers: {
      host: '10.0.0.5:8788',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    }),
  });

describe('a token-protected server named by another host', () => {
  const app = createHttpApp({ service, token: TOKEN });

  it('answers /health and an MCP call that carries the token', async () => {
    const health = await app.fetch(
      new Request('http://10.0.0.5:8788/health', { headers: { host: '10.0.0.5:8788' } }),
    );
    expect(health.status).toBe(200);
    const init = await app.fetch(initialize({ authorization: `Bearer ${TOKEN}` }));
    expect(init.status).toBe(200);
  });

  it('still needs the token, and still refuses a foreign browser Origin', async () => {
    expect((await app.fetch(initialize({}))).status).toBe(401);
    const fromPage = await app.fetch(
      initialize({ authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' }),
    );
    expect(fromPage.status).toBe(403);
  });

  it('without a token only localhost names are accepted (DNS rebinding)', async () => {
    const open = createHttpApp({ service });
    expect((await open.fetch(initialize({}))).status).toBe(403);
    const local = await open.fetch(
      new Request('http://127.0.0.1:8788/health', { headers: { host: '127.0.0.1:8788' } }),
    );
    expect(local.status).toBe(200);
  });

  it('an explicit allowedHosts list is kept with a token too', async () => {
    const listed = createHttpApp({ service, token: TOKEN, allowedHosts: ['kitchen.internal'] });
    expect((await listed.fetch(initialize({ authorization: `Bearer ${TOKEN}` }))).status).toBe(403);
  });
});
