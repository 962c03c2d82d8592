import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHttpApp, createMcpToolServer, type McpHttpApp, type McpHttpOptions } from '@reins/mcp';
import { kitchenTools } from './fixtures/kitchen-tools.mjs';

// The HTTP face of the server bridge, requests straight into the web-standard handler (no port).
const { lookup, slow, addNote } = kitchenTools();
const server = createMcpToolServer({ name: 'kitchen', version: '1.2.3', tools: [lookup, slow] });
const tokens: Record<string, { id: string }> = { 'token-alice': { id: 'alice' }, 'token-bob': { id: 'bob' } };
let app: McpHttpApp | undefined;

function makeApp(options: Partial<McpHttpOptions> = {}): McpHttpApp {
  app = createMcpHttpApp(server, { authenticate: (token) => tokens[token], maxBodyBytes: 4_096, ...options });
  return app;
}

afterEach(async () => {
  await app?.close();
  app = undefined;
});

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

function post(body: string, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1:8790/mcp', {
    method: 'POST',
    headers: {
      host: '127.0.0.1:8790',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer token-alice',
      ...headers,
    },
    body,
  });
}

async function jsonRpcErrorOf(response: Response): Promise<number> {
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await response.json()) as { jsonrpc: string; error: { code: number } };
  expect(body.jsonrpc).toBe('2.0');
  return body.error.code;
}

describe('the HTTP server bridge', () => {
  it('refuses a missing or invalid bearer token with 401 and a JSON-RPC body', async () => {
    const a = makeApp();
    const none = await a.fetch(post(JSON.stringify(INIT), { authorization: '' }));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await jsonRpcErrorOf(none)).toBe(-32001);
    const wrong = await a.fetch(post(JSON.stringify(INIT), { authorization: 'Bearer token-mallory' }));
    expect(wrong.status).toBe(401);
    const basic = await a.fetch(post(JSON.stringify(INIT), { authorization: 'Basic dXNlcjpwYXNz' }));
    expect(basic.status).toBe(401);
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
    expect((await a.fetch(post(JSON.stringify(INIT), { authorization: 'bearer token-alice' }))).status).toBe(
      200,
    );
    expect((await a.fetch(post(JSON.stringify(INIT), { authorization: 'BEARER token-alice' }))).status).toBe(
      200,
    );
    expect((await a.fetch(post(JSON.stringify(INIT), { authorization: 'Bearer TOKEN-ALICE' }))).status).toBe(
      401,
    );
    const throwing = makeApp({
      authenticate: () => {
        throw new Error('token store down');
      },
    });
    expect((await throwing.fetch(post(JSON.stringify(INIT)))).status).toBe(401);
  });

  it('refuses a foreign Host or Origin with 403 (DNS rebinding)', async () => {
    const a = makeApp();
    expect((await a.fetch(post(JSON.stringify(INIT), { host: 'evil.example' }))).status).toBe(403);
    expect((await a.fetch(post(JSON.stringify(INIT), { origin: 'http://evil.example' }))).status).toBe(403);
    const health = new Request('http://127.0.0.1/health', { headers: { host: 'rebound.example' } });
    expect((await a.fetch(health)).status).toBe(403);
    expect((await a.fetch(post(JSON.stringify(INIT), { origin: 'http://localhost:3000' }))).status).toBe(200);
  });

  it('answers an oversize body with 413 and malformed JSON with a JSON-RPC parse error, never HTML', async () => {
    const a = makeApp();
    const big = await a.fetch(post(JSON.stringify({ ...INIT, pad: 'x'.repeat(5_000) })));
    expect(big.status).toBe(413);
    expect(await jsonRpcErrorOf(big)).toBe(-32600);
    const malformed = await a.fetch(post('{"jsonrpc": "2.0", "id": 1, "method": '));
    expect(malformed.status).toBe(400);
    expect(await jsonRpcErrorOf(malformed)).toBe(-32700);
  });

  it('serves /health with status, version and dependencies, degraded when one is down', async () => {
    const ok = makeApp({ dependencies: { pantry: () => true } });
    const okBody = await (
      await ok.fetch(new Request('http://localhost/health', { headers: { host: 'localhost:8790' } }))
    ).json();
    expect(okBody).toEqual({
      status: 'ok',
      name: 'kitchen',
      version: '1.2.3',
      tools: 2,
      sessions: 0,
      dependencies: { pantry: 'up' },
    });
    const hung = makeApp({
      healthTimeoutMs: 50,
      dependencies: {
        pantry: () => true,
        redis: () => new Promise<boolean>(() => {}),
        db: () => Promise.reject(new Error('down')),
      },
    });
    const body = await (
      await hung.fetch(new Request('http://localhost/health', { headers: { host: 'localhost:8790' } }))
    ).json();
    expect(body).toMatchObject({
      status: 'degraded',
      dependencies: { pantry: 'up', redis: 'down', db: 'down' },
    });
  });

  it('keeps 2025-era sessions per principal and expires idle ones', async () => {
    let now = 1_000;
    const a = makeApp({ sessionIdleMs: 60_000, now: () => now });
    const opened = await a.fetch(post(JSON.stringify(INIT)));
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id');
    expect(sessionId).toBeTruthy();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const inSession = { 'mcp-session-id': sessionId ?? '', 'mcp-protocol-version': '2025-11-25' };
    // Another principal presenting the id: as if there were no such session.
    const stolen = await a.fetch(post(list, { ...inSession, authorization: 'Bearer token-bob' }));
    expect(stolen.status).toBe(404);
    now += 59_000;
    expect((await a.fetch(post(list, inSession))).status).toBe(200);
    now += 61_000;
    a.expireIdleSessions();
    const expired = await a.fetch(post(list, inSession));
    expect(expired.status).toBe(404);
    expect(await jsonRpcErrorOf(expired)).toBe(-32600);
  });

  it('refuses to serve a tool that changes things unless it is opted in', () => {
    expect(() => createMcpToolServer({ name: 'k', version: '1', tools: [lookup, addNote] })).toThrow(
      /add_note.*allowWrite/,
    );
    const served = createMcpToolServer({
      name: 'k',
      version: '1',
      tools: [lookup, addNote],
      allowWrite: ['add_note'],
    });
    expect(served.toolNames).toEqual(['lookup_pantry', 'add_note']);
  });
});
