import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { createReinsServer, hostAllowed, LOOPBACK_HOSTS } from '@reins/server';
import { as, final, memoryLogger, openSse, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

interface Raw {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A request with node:http, so the test sets `Host` itself (fetch sends the URL's). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} });
    req.on('error', reject);
    req.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

function expectGuarded(headers: Record<string, string | string[] | undefined>): void {
  expect({
    nosniff: headers['x-content-type-options'],
    frame: headers['x-frame-options'],
    csp: headers['content-security-policy'],
    referrer: headers['referrer-policy'],
    cache: headers['cache-control'],
  }).toEqual({
    nosniff: 'nosniff',
    frame: 'DENY',
    csp: "frame-ancestors 'none'",
    referrer: 'no-referrer',
    cache: 'no-store',
  });
}

const helper = () => ({ helper: { model: scriptModel([final('3')]) } });
const json = { 'content-type': 'application/json', ...as('alice') };

describe('security headers on every response of @reins/server', () => {
  it('JSON 200, SSE, 401, 404, 413, /health and /metrics', async () => {
    running = await start({ agents: helper(), limits: { maxBodyBytes: 100 } });
    const url = running.url;
    const answers: [string, Raw][] = [
      ['agents', await raw(`${url}/v1/agents`, { headers: as('alice') })],
      [
        'json run',
        await raw(`${url}/v1/runs`, {
          method: 'POST',
          headers: json,
          body: '{"agent":"helper","input":"1+2?"}',
        }),
      ],
      ['401', await raw(`${url}/v1/agents`)],
      ['404', await raw(`${url}/v1/runs/nope`, { headers: as('alice') })],
      ['404 route', await raw(`${url}/nowhere`)],
      [
        '413',
        await raw(`${url}/v1/runs`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ agent: 'helper', input: 'x'.repeat(200) }),
        }),
      ],
      ['health', await raw(`${url}/health`)],
      ['metrics', await raw(`${url}/metrics`)],
    ];
    expect(answers.map(([name, r]) => [name, r.status])).toEqual([
      ['agents', 200],
      ['json run', 200],
      ['401', 401],
      ['404', 404],
      ['404 route', 404],
      ['413', 413],
      ['health', 200],
      ['metrics', 200],
    ]);
    for (const [, answer] of answers) expectGuarded(answer.headers);

    const sse = await openSse(`${url}/v1/runs`, {
      body: { agent: 'helper', input: '1+2?' },
      headers: as('alice'),
    });
    await sse.ended;
    expect(sse.response.headers['content-type']).toContain('text/event-stream');
    expectGuarded(sse.response.headers); // no-store replaces the SSE helper's no-cache
  });

  it('500 (an unexpected error) too', async () => {
    const server = createReinsServer({
      agents: helper(),
      authenticate: () => {
        throw new Error('auth backend down');
      },
      logger: memoryLogger('silent').logger,
    });
    const response = await server.app.request('/v1/agents');
    expect(response.status).toBe(500);
    expectGuarded(Object.fromEntries(response.headers));
    await server.close();
  });
});

describe('Host check (DNS rebinding)', () => {
  it('refuses a foreign Host with 421 MISDIRECTED_REQUEST before routing, headers included', async () => {
    running = await start({ agents: helper() });
    const port = new URL(running.url).port;
    for (const path of ['/v1/agents', '/v1/runs', '/health', '/metrics', '/nowhere']) {
      const answer = await raw(`${running.url}${path}`, {
        headers: { ...as('alice'), host: `evil.example:${port}` },
      });
      expect({ path, status: answer.status }).toEqual({ path, status: 421 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'MISDIRECTED_REQUEST' } });
      expectGuarded(answer.headers);
    }
    // A rebinding page under a name that merely ends in a loopback name gets no further.
    const tricky = await raw(`${running.url}/health`, {
      headers: { host: `localhost.evil.example:${port}` },
    });
    expect(tricky.status).toBe(421);
  });

  it('answers the loopback names on any port (ephemeral test ports, fetch and app.request)', async () => {
    running = await start({ agents: helper() });
    const port = new URL(running.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      '[::1]:9',
      'localhost',
    ]) {
      const answer = await raw(`${running.url}/v1/agents`, { headers: { ...as('alice'), host } });
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
    expect((await fetch(`${running.url}/v1/agents`, { headers: as('alice') })).status).toBe(200);
    expect((await running.server.app.request('/v1/agents', { headers: as('alice') })).status).toBe(200);
  });

  it('allowedHosts adds names (any port, or one port); "any" turns the check off', async () => {
    running = await start({ agents: helper(), allowedHosts: ['kitchen.example', 'api.example:8443'] });
    const status = async (host: string) =>
      (await raw(`${running?.url ?? ''}/health`, { headers: { host } })).status;
    expect(await status('kitchen.example:8787')).toBe(200);
    expect(await status('Kitchen.Example')).toBe(200);
    expect(await status('api.example:8443')).toBe(200);
    expect(await status('api.example:443')).toBe(421);
    expect(await status('evil.example')).toBe(421);
    expect(await status('127.0.0.1:1')).toBe(200);
    await running.close();
    running = await start({ agents: helper(), allowedHosts: 'any' });
    expect(await status('evil.example:8787')).toBe(200);
  });

  it('hostAllowed: names and ports, malformed hosts refused', () => {
    const allowed = [...LOOPBACK_HOSTS, 'a.example:80'];
    expect(hostAllowed('[::1]:8787', allowed)).toBe(true);
    expect(hostAllowed('localhost.:8787', allowed)).toBe(true);
    expect(hostAllowed('a.example:80', allowed)).toBe(true);
    expect(hostAllowed('a.example', allowed)).toBe(false);
    expect(hostAllowed('user@localhost', allowed)).toBe(false);
    expect(hostAllowed('localhost:80:80', allowed)).toBe(false);
    expect(hostAllowed('', allowed)).toBe(false);
    expect(hostAllowed('127.0.0.2', allowed)).toBe(false);
  });
});
