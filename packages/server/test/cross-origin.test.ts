import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { createReinsServer, normalizeOrigin, parseAllowedOrigins, type ReinsServer } from '@reins/server';
import { as, final, memoryLogger, start, writeAs, type Started } from './helpers.js';

/**
 * Issue 16.3: a page on another origin (another 127.0.0.1 port included) must not start runs,
 * cancel, approve, answer or delete. Writes under /v1 need `Content-Type: application/json`
 * (415) and this origin (403); reads are untouched.
 */

let server: ReinsServer | undefined;
let running: Started | undefined;
afterEach(async () => {
  await server?.close();
  await running?.close();
  server = undefined;
  running = undefined;
});

const agents = () => ({ helper: { model: scriptModel([final('3'), final('3'), final('3')]) } });
const RUN = JSON.stringify({ agent: 'helper', input: '1+2?' });

function build(allowedOrigins?: readonly string[]): ReinsServer {
  server = createReinsServer({
    agents: agents(),
    authenticate: (request) =>
      request.headers.get('authorization') === 'Bearer user:alice' ? { id: 'alice' } : undefined,
    logger: memoryLogger('silent').logger,
    ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
  });
  return server;
}

/** Runs the server holds, in any state: each started run is one. */
const runCount = (s: ReinsServer): number => {
  const { live, paused, finished } = s.runs.size;
  return live + paused + finished;
};

/** `app.request` (URL `http://localhost/…`, so this server's own origin is `http://localhost`). */
async function send(s: ReinsServer, method: string, path: string, headers: Record<string, string>) {
  const response = await s.app.request(path, {
    method,
    headers,
    ...(method === 'POST' && path === '/v1/runs' ? { body: RUN } : {}),
  });
  const text = await response.text();
  const body = text === '' ? null : (JSON.parse(text) as { error?: { code: string; message: string } });
  return { status: response.status, code: body?.error?.code, headers: response.headers };
}

describe('writes under /v1 need the JSON content type (415)', () => {
  it('text/plain, a form type or none at all: 415 UNSUPPORTED_MEDIA_TYPE, and no run starts', async () => {
    const s = build();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const reply = await send(s, 'POST', '/v1/runs', { ...as('alice'), 'content-type': type });
      expect({ type, status: reply.status, code: reply.code }).toEqual({
        type,
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    }
    expect((await send(s, 'POST', '/v1/runs', as('alice'))).status).toBe(415);
    expect(runCount(s)).toBe(0);
    // Body-less writes too: cancel, and DELETE of a conversation.
    expect((await send(s, 'POST', '/v1/runs/r-1/cancel', as('alice'))).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await send(s, 'DELETE', '/v1/conversations/c-1', as('alice'))).code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('application/json with parameters, in any case, passes', async () => {
    const s = build();
    const reply = await send(s, 'POST', '/v1/runs', {
      ...as('alice'),
      'content-type': 'Application/JSON; charset=utf-8',
    });
    expect(reply.status).toBe(200);
    expect(runCount(s)).toBe(1);
    // A body-less write with the type reaches its route (here: no such run).
    expect((await send(s, 'POST', '/v1/runs/r-1/cancel', writeAs('alice'))).status).toBe(404);
  });
});

describe('writes under /v1 come from this origin (403)', () => {
  it('a foreign Origin (another site, another port, a scheme change, null): 403 CROSS_ORIGIN, no run', async () => {
    const s = build();
    for (const origin of [
      'http://evil.example',
      'http://localhost:8787',
      'https://localhost',
      'null',
      'http://localhost/path',
    ]) {
      const reply = await send(s, 'POST', '/v1/runs', { ...writeAs('alice'), origin });
      expect({ origin, status: reply.status, code: reply.code }).toEqual({
        origin,
        status: 403,
        code: 'CROSS_ORIGIN',
      });
    }
    for (const [method, path] of [
      ['POST', '/v1/runs/r-1/cancel'],
      ['POST', '/v1/runs/r-1/approve'],
      ['POST', '/v1/runs/r-1/answer'],
      ['DELETE', '/v1/conversations/c-1'],
    ] as const) {
      const reply = await send(s, method, path, { ...writeAs('alice'), origin: 'http://evil.example' });
      expect({ path, status: reply.status }).toEqual({ path, status: 403 });
    }
    expect(runCount(s)).toBe(0);
  });

  it('the refusal is checked before the content type, and carries the security headers', async () => {
    const s = build();
    const reply = await send(s, 'POST', '/v1/runs', {
      ...as('alice'),
      origin: 'http://evil.example',
      'content-type': 'text/plain',
    });
    expect([reply.status, reply.code]).toEqual([403, 'CROSS_ORIGIN']);
    expect(reply.headers.get('x-frame-options')).toBe('DENY');
    expect(reply.headers.get('cache-control')).toBe('no-store');
  });

  it('without Origin, Sec-Fetch-Site cross-site or same-site is refused; same-origin and none pass', async () => {
    const s = build();
    for (const site of ['cross-site', 'same-site']) {
      const reply = await send(s, 'POST', '/v1/runs', { ...writeAs('alice'), 'sec-fetch-site': site });
      expect({ site, status: reply.status, code: reply.code }).toEqual({
        site,
        status: 403,
        code: 'CROSS_ORIGIN',
      });
    }
    for (const site of ['same-origin', 'none']) {
      const reply = await send(s, 'POST', '/v1/runs', { ...writeAs('alice'), 'sec-fetch-site': site });
      expect({ site, status: reply.status }).toEqual({ site, status: 200 });
    }
  });

  it('the same origin passes (Origin decides over Sec-Fetch-Site); curl (neither header) passes', async () => {
    const s = build();
    const same = await send(s, 'POST', '/v1/runs', { ...writeAs('alice'), origin: 'http://localhost' });
    expect(same.status).toBe(200);
    const curl = await send(s, 'POST', '/v1/runs', writeAs('alice'));
    expect(curl.status).toBe(200);
    expect(runCount(s)).toBe(2);
  });

  it('an allowlisted origin passes (allowedOrigins), its other ports do not', async () => {
    const s = build(['https://kitchen.example', 'http://Partner.Example:8080/']);
    const status = async (origin: string) =>
      (await send(s, 'POST', '/v1/runs', { ...writeAs('alice'), origin, 'sec-fetch-site': 'cross-site' }))
        .status;
    expect(await status('https://kitchen.example')).toBe(200);
    expect(await status('https://kitchen.example:443')).toBe(200);
    expect(await status('http://partner.example:8080')).toBe(200);
    expect(await status('https://kitchen.example:8443')).toBe(403);
    expect(await status('http://kitchen.example')).toBe(403);
    expect(await status('https://evil.example')).toBe(403);
  });

  it('GET, HEAD and OPTIONS are not checked', async () => {
    const s = build();
    const foreign = { ...as('alice'), origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    expect((await send(s, 'GET', '/v1/agents', foreign)).status).toBe(200);
    expect(
      (await send(s, 'GET', '/v1/conversations', { ...foreign, 'content-type': 'text/plain' })).status,
    ).toBe(200);
    expect((await send(s, 'GET', '/health', foreign)).status).toBe(200);
    expect((await send(s, 'OPTIONS', '/v1/runs', foreign)).code).not.toBe('CROSS_ORIGIN');
  });

  it('a malformed allowed origin is refused when the server is built', () => {
    for (const bad of ['kitchen.example', 'https://kitchen.example/app', 'ftp://kitchen.example', '*']) {
      expect(() => build([bad])).toThrow(/allowedOrigins/);
    }
    server = undefined;
  });
});

describe('over HTTP: the own origin is the Host the request came to', () => {
  /** node:http, so the test sets `Origin` itself. */
  function post(url: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${url}/v1/runs`, {
        method: 'POST',
        headers: { ...writeAs('alice'), ...headers },
      });
      req.on('error', reject);
      req.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      req.end(RUN);
    });
  }

  it('Origin http://127.0.0.1:<this port> passes; another 127.0.0.1 port is refused', async () => {
    running = await start({ agents: agents() });
    const port = Number(new URL(running.url).port);
    expect(await post(running.url, { origin: `http://127.0.0.1:${port}` })).toBe(200);
    expect(await post(running.url, { origin: `http://localhost:${port}`, host: `localhost:${port}` })).toBe(
      200,
    );
    expect(await post(running.url, { origin: `http://127.0.0.1:${port + 1}` })).toBe(403);
    // A Host the server does not answer is refused first (421), whatever the Origin.
    expect(await post(running.url, { origin: 'http://evil.example', host: 'evil.example' })).toBe(421);
  });
});

describe('normalizeOrigin and parseAllowedOrigins', () => {
  it('an http(s) origin, lower case, default port dropped; anything else undefined', () => {
    expect(normalizeOrigin('HTTPS://Kitchen.Example:443/')).toBe('https://kitchen.example');
    expect(normalizeOrigin('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787');
    expect(normalizeOrigin('http://[::1]:8787')).toBe('http://[::1]:8787');
    for (const bad of [
      'null',
      '',
      'kitchen.example',
      'https://a.example/x',
      'https://u@a.example',
      'https://a.example?x',
      'file:///x',
    ])
      expect({ bad, origin: normalizeOrigin(bad) }).toEqual({ bad, origin: undefined });
  });

  it('splits comma-separated text, blanks dropped', () => {
    expect(parseAllowedOrigins(' https://a.example, ,http://b.example:8080 ,')).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(parseAllowedOrigins(undefined)).toEqual([]);
  });
});
