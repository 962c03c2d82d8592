import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMcpHttpApp,
  createMcpToolServer,
  startMcpHttp,
  type McpHttpApp,
  type McpHttpOptions,
} from '@reins/mcp';
import { kitchenTools } from './fixtures/kitchen-tools.mjs';

// Issue 16.5: one principal filled the 100-session table and everyone got 503. Sessions are
// capped per principal (its idlest one makes room, or 429 when all are busy) and JSON-RPC
// batches are capped on both revisions. Requests go straight into the web-standard handler.
const { lookup, slow } = kitchenTools();
const server = createMcpToolServer({ name: 'kitchen', version: '1.2.3', tools: [lookup, slow] });
const tokens: Record<string, { id: string }> = { 'token-alice': { id: 'alice' }, 'token-bob': { id: 'bob' } };
let app: McpHttpApp | undefined;

function makeApp(options: Partial<McpHttpOptions> = {}): McpHttpApp {
  app = createMcpHttpApp(server, { authenticate: (token) => tokens[token], ...options });
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
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
/** A call that keeps its request in flight for ~5 s unless its response is cancelled. */
const SLOW = {
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'slow_count', arguments: { steps: 50, delayMs: 100 } },
};

function post(body: unknown, who: string, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1:8790/mcp', {
    method: 'POST',
    headers: {
      host: '127.0.0.1:8790',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer token-${who}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** Opens a 2025-era session (its initialize answer read to the end); its id, or the refusal. */
async function open(a: McpHttpApp, who: string): Promise<{ status: number; id: string; body: string }> {
  const response = await a.fetch(post(INIT, who));
  return {
    status: response.status,
    id: response.headers.get('mcp-session-id') ?? '',
    body: await response.text(),
  };
}

function inSession(a: McpHttpApp, id: string, who: string, body: unknown): Promise<Response> {
  return a.fetch(post(body, who, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }));
}

async function status(a: McpHttpApp, id: string, who: string): Promise<number> {
  const response = await inSession(a, id, who, LIST);
  await response.text();
  return response.status;
}

async function sessionCount(a: McpHttpApp): Promise<number> {
  const health = await a.fetch(
    new Request('http://localhost/health', { headers: { host: 'localhost:8790' } }),
  );
  return ((await health.json()) as { sessions: number }).sessions;
}

describe('2025-era sessions per principal (maxSessionsPerPrincipal, default 10)', () => {
  it("an 11th session closes the principal's idlest session, skipping busy ones; others unaffected", async () => {
    let now = 1_000;
    const a = makeApp({ now: () => now });
    const bob = await open(a, 'bob');
    expect(bob.status).toBe(200);
    now += 1;
    const first = await open(a, 'alice');
    // The first session is idle longest but busy: a call is in flight on it.
    const busy = await inSession(a, first.id, 'alice', SLOW);
    expect(busy.status).toBe(200);
    const alice = [first.id];
    for (let i = 1; i < 10; i += 1) {
      now += 1;
      const opened = await open(a, 'alice');
      expect(opened.status).toBe(200);
      alice.push(opened.id);
    }
    expect(await sessionCount(a)).toBe(11);

    now += 1;
    const eleventh = await open(a, 'alice');
    expect(eleventh.status).toBe(200);
    expect(await sessionCount(a)).toBe(11); // one of alice's made room
    expect(await status(a, alice[1] ?? '', 'alice')).toBe(404); // the idlest idle one
    for (const id of [first.id, ...alice.slice(2), eleventh.id])
      expect(await status(a, id, 'alice')).toBe(200);
    expect(await status(a, bob.id, 'bob')).toBe(200); // another principal: untouched
    await busy.body?.cancel(); // the caller went away: that request is no longer in flight
  });

  it('refuses the next session with 429 while every one of its sessions is busy; others can still open', async () => {
    const a = makeApp({ maxSessionsPerPrincipal: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await open(a, 'alice')).id);
    const calls = await Promise.all(ids.map((id) => inSession(a, id, 'alice', SLOW)));
    const refused = await a.fetch(post(INIT, 'alice'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as { jsonrpc: string; error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/Too many open sessions for this principal \(3\)/);
    expect((await open(a, 'bob')).status).toBe(200); // bob is not alice
    for (const id of ids) expect(await status(a, id, 'alice')).toBe(200); // nothing of alice's was closed

    // A finished call leaves its session idle: now the next session gets room.
    await Promise.all(calls.map((call) => call.body?.cancel()));
    const again = await open(a, 'alice');
    expect(again.status).toBe(200);
    expect(await sessionCount(a)).toBe(4); // 3 of alice's + bob's
  });

  it('a session whose call ended is idle again (the answer read to the end)', async () => {
    const a = makeApp({ maxSessionsPerPrincipal: 1 });
    const only = await open(a, 'alice');
    const call = await inSession(a, only.id, 'alice', {
      ...SLOW,
      params: { name: 'slow_count', arguments: { steps: 1, delayMs: 50 } },
    });
    const busyNow = await a.fetch(post(INIT, 'alice'));
    expect(busyNow.status).toBe(429);
    expect(await call.text()).toContain('"counted":1');
    const next = await open(a, 'alice');
    expect(next.status).toBe(200);
    expect(await status(a, only.id, 'alice')).toBe(404); // closed to make room
  });

  it('over a real socket: a client that hangs up mid-call leaves its session idle', async () => {
    const running = await startMcpHttp(server, {
      authenticate: (token) => tokens[token],
      maxSessionsPerPrincipal: 1,
    });
    try {
      const url = `${running.url}/mcp`;
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer token-alice',
      };
      const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INIT) });
      const id = init.headers.get('mcp-session-id') ?? '';
      await init.text();
      // A slow call whose caller goes away once the answer has started.
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          url,
          {
            method: 'POST',
            headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
          },
          (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', () => undefined);
        req.once('error', reject);
        req.end(JSON.stringify({ ...SLOW, params: { ...SLOW.params, _meta: { progressToken: 1 } } }));
      });
      let answered = 0;
      for (const until = Date.now() + 3_000; Date.now() < until;) {
        const next = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INIT) });
        await next.text();
        answered = next.status;
        if (answered === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(answered).toBe(200); // the hung-up call no longer held its session
    } finally {
      await running.close();
    }
  });

  it('refuses a cap below 1', () => {
    expect(() => makeApp({ maxSessionsPerPrincipal: 0 })).toThrow(RangeError);
    expect(() => makeApp({ maxBatchSize: 1.5 })).toThrow(RangeError);
  });
});

describe('JSON-RPC batches (maxBatchSize, default 10)', () => {
  const PING = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

  it('2025-11-25: a batch of 10 is answered, 11 is refused with -32600 before any of it runs', async () => {
    const a = makeApp();
    const session = await open(a, 'alice');
    const ten = await inSession(
      a,
      session.id,
      'alice',
      Array.from({ length: 10 }, (_, i) => PING(i + 10)),
    );
    expect(ten.status).toBe(200);
    const answered = await ten.text();
    for (let i = 10; i < 20; i += 1) expect(answered).toContain(`"id":${i}`);

    const eleven = await inSession(
      a,
      session.id,
      'alice',
      Array.from({ length: 11 }, (_, i) => PING(i + 30)),
    );
    expect(eleven.status).toBe(400);
    const body = (await eleven.json()) as {
      jsonrpc: string;
      id: null;
      error: { code: number; message: string };
    };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(body.error.message).toBe(
      'Invalid Request: a JSON-RPC batch may hold at most 10 messages; this one has 11',
    );
  });

  it('2026-07-28: a batch of 11 is refused with the same -32600 (the revision has no batches at all)', async () => {
    const a = makeApp();
    const modern = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };
    const single = await a.fetch(post(modern(1), 'alice', headers));
    expect(single.status).toBe(200); // the request is a valid 2026-07-28 one
    await single.text();
    const eleven = await a.fetch(
      post(
        Array.from({ length: 11 }, (_, i) => modern(i + 2)),
        'alice',
        headers,
      ),
    );
    expect(eleven.status).toBe(400);
    const body = (await eleven.json()) as { error: { code: number; message: string } };
    expect(body.error).toEqual({
      code: -32600,
      message: 'Invalid Request: a JSON-RPC batch may hold at most 10 messages; this one has 11',
    });
    // Smaller 2026 batches are refused by the SDK itself, also with -32600.
    const two = await a.fetch(post([modern(20), modern(21)], 'alice', headers));
    expect(two.status).toBe(400);
    expect(((await two.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it('the cap is an option', async () => {
    const a = makeApp({ maxBatchSize: 2 });
    const session = await open(a, 'alice');
    const three = await inSession(a, session.id, 'alice', [PING(1), PING(2), PING(3)]);
    expect(three.status).toBe(400);
    expect(((await three.json()) as { error: { message: string } }).error.message).toMatch(
      /at most 2 messages/,
    );
  });
});
