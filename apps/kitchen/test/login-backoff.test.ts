import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHashGate } from '../src/auth/hash-gate.js';
import { verifyPassword } from '../src/auth/password.js';
import { ConfigError, describeConfig, readConfig } from '../src/config.js';
import { createKitchenApp } from '../src/http/app.js';
import type { LoginOptions } from '../src/services/auth-service.js';
import { createKitchenServices } from '../src/services/kitchen-services.js';
import { createLoginThrottle, usernameKey } from '../src/services/login-throttle.js';
import { describeEachBackend, type Harness } from './harness.js';
import { timedRequest, type TimedReply } from './raw-http.js';

/**
 * Issue 16.4: failed logins back off per username and per client address (429 + Retry-After,
 * no password check), counted in the database; password checks pass a small gate (503 past it).
 * Each test signs in from its own 127.0.0.x address (Linux routes all of 127/8 to loopback), so
 * address locks of one test do not reach another.
 */

const MINUTE = 60_000;

interface Kitchen {
  readonly url: string;
  /** Password checks (scrypt) done so far. */
  checks(): number;
  close(): Promise<void>;
}

/** The kitchen API over the harness's database and clock, with its own login options. */
async function kitchen(h: Harness, login: LoginOptions = {}): Promise<Kitchen> {
  let checks = 0;
  const services = createKitchenServices({
    db: h.db,
    clock: () => h.clock.now,
    login: {
      verifyPassword: (password, stored) => {
        checks++;
        return verifyPassword(password, stored);
      },
      ...login,
    },
  });
  const app = createKitchenApp({ services, reportError: () => undefined });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    checks: () => checks,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

interface Reply {
  readonly status: number;
  readonly body: { error?: { code: string; message: string }; token?: string };
  readonly retryAfter: string | undefined;
}

const toReply = (reply: TimedReply): Reply => ({
  status: reply.status,
  body: JSON.parse(reply.body) as Reply['body'],
  retryAfter: reply.headers['retry-after'] as string | undefined,
});

async function login(
  k: Kitchen,
  from: string,
  username: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return toReply(
    await timedRequest(`${k.url}/api/auth/login`, {
      method: 'POST',
      body: { username, password },
      localAddress: from,
      headers,
    }),
  );
}

const LOCKED = { error: { code: 'RATE_LIMITED', message: 'too many failed sign-ins: try again in 15 min' } };
const WRONG = { error: { code: 'UNAUTHENTICATED', message: 'wrong username or password' } };

describeEachBackend('login backoff and the password-check gate (issue 16.4)', (harness) => {
  let k: Kitchen;
  beforeAll(async () => {
    k = await kitchen(harness());
  });
  afterAll(async () => {
    await k.close();
  });

  it('five wrong passwords are 401s; the sixth try is 429 with Retry-After, the right password too, and nothing is checked', async () => {
    for (let i = 0; i < 5; i++)
      expect(await login(k, '127.0.0.11', 'mama', `wrong-${i}`)).toMatchObject({ status: 401, body: WRONG });
    const checked = k.checks();
    const sixth = await login(k, '127.0.0.12', 'mama', 'wrong-5'); // another address: the username is locked
    expect(sixth).toEqual({ status: 429, body: LOCKED, retryAfter: '900' });
    expect(await login(k, '127.0.0.12', 'mama', 'demo-mama')).toMatchObject({
      status: 429,
      retryAfter: '900',
    });
    expect(k.checks()).toBe(checked); // refused without hashing
  });

  it('an unknown username is counted and locked like a real one: the same answers, the same headers', async () => {
    const real: Reply[] = [];
    const unknown: Reply[] = [];
    for (let i = 0; i < 7; i++) {
      // Two addresses per try: the address locks must not be what answers here.
      real.push(await login(k, `127.0.1.${i + 1}`, 'laowang', 'not-it'));
      unknown.push(await login(k, `127.0.2.${i + 1}`, 'no-such-user', 'not-it'));
    }
    expect(unknown).toEqual(real);
    expect(real.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('the username is normalized: case, width and spaces count as one username', async () => {
    for (const [i, name] of ['Wangshen', 'WANGSHEN ', 'ｗａｎｇｓｈｅｎ', ' wangshen', 'wangShen'].entries())
      expect((await login(k, `127.0.3.${i + 1}`, name, 'not-it')).status).toBe(401);
    expect((await login(k, '127.0.3.9', 'wangshen', 'demo-wangshen')).status).toBe(429);
  });

  it('an address with five failures (any usernames) is locked; another address is not', async () => {
    for (let i = 0; i < 5; i++)
      expect((await login(k, '127.0.4.1', `someone-${i}`, 'not-it')).status).toBe(401);
    const locked = await login(k, '127.0.4.1', 'nainai', 'demo-nainai');
    expect(locked).toEqual({ status: 429, body: LOCKED, retryAfter: '900' });
    // Refused before the body is read: a body that is no login at all (else 400) gets the same.
    const unread = await timedRequest(`${k.url}/api/auth/login`, {
      method: 'POST',
      body: ['not', 'a', 'login'],
      localAddress: '127.0.4.1',
    });
    expect(toReply(unread)).toEqual({ status: 429, body: LOCKED, retryAfter: '900' });
    expect((await login(k, '127.0.4.2', 'nainai', 'demo-nainai')).status).toBe(200);
  });

  it('X-Forwarded-For is ignored unless proxies are trusted: a client cannot dodge the address lock with it', async () => {
    for (let i = 0; i < 5; i++)
      expect(
        (await login(k, '127.0.5.1', `spoof-${i}`, 'x', { 'x-forwarded-for': `10.0.0.${i}` })).status,
      ).toBe(401);
    expect((await login(k, '127.0.5.1', 'spoof-9', 'x', { 'x-forwarded-for': '10.0.0.99' })).status).toBe(
      429,
    );
  });

  it('behind a trusted proxy (trustProxy 1) the address is the one the proxy saw, last in X-Forwarded-For', async () => {
    const h = harness();
    const services = createKitchenServices({ db: h.db, clock: () => h.clock.now });
    const app = createKitchenApp({ services, trustProxy: 1 });
    const post = (username: string, forwarded: string) =>
      app.request('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded },
        body: JSON.stringify({ username, password: 'x' }),
      });
    // The client forges the left entries; the proxy appends what it saw (10.9.9.9).
    for (let i = 0; i < 5; i++) expect((await post(`proxied-${i}`, `1.1.1.${i}, 10.9.9.9`)).status).toBe(401);
    expect((await post('proxied-9', '1.1.1.99, 10.9.9.9')).status).toBe(429);
    expect((await post('proxied-9', '10.9.9.9, 10.9.9.8')).status).toBe(401); // another client of the proxy
  });

  it('a success clears the username count (not the address count)', async () => {
    for (let i = 0; i < 4; i++) expect((await login(k, `127.0.6.${i + 1}`, 'xiaojia', 'x')).status).toBe(401);
    expect((await login(k, '127.0.6.9', 'xiaojia', 'demo-xiaojia')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login(k, `127.0.6.${i + 1}`, 'xiaojia', 'x')).status).toBe(401);
    // Each of 127.0.6.1–4 has 2 failures now; the username 4 since the success.
    expect((await login(k, '127.0.6.10', 'xiaojia', 'demo-xiaojia')).status).toBe(200);
  });

  it('every instance on the database sees the same counts and locks (the shared mode)', async () => {
    const h = harness();
    const other = await kitchen(h);
    try {
      for (let i = 0; i < 3; i++)
        expect((await login(k, `127.0.7.${i + 1}`, 'shared-user', 'x')).status).toBe(401);
      for (let i = 3; i < 5; i++)
        expect((await login(other, `127.0.7.${i + 1}`, 'shared-user', 'x')).status).toBe(401);
      expect(await login(k, '127.0.7.9', 'shared-user', 'x')).toMatchObject({
        status: 429,
        retryAfter: '900',
      });
      expect(await login(other, '127.0.7.9', 'shared-user', 'x')).toMatchObject({
        status: 429,
        retryAfter: '900',
      });
    } finally {
      await other.close();
    }
  });

  it('concurrent failures are each counted (one atomic upsert per failure)', async () => {
    const h = harness();
    const throttles = [
      createLoginThrottle(h.db, () => h.clock.now),
      createLoginThrottle(h.db, () => h.clock.now),
    ];
    const key = usernameKey('raced');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => throttles[i % 2]?.recordFailure([key, `addr:race-${i % 3}`])),
    );
    const rows = await h.db.query<{ key: string; failures: number }>(
      "SELECT key, failures FROM login_failures WHERE key = $1 OR key LIKE 'addr:race-%' ORDER BY key",
      [key],
    );
    expect(rows.map((r) => [r.key, Number(r.failures)])).toEqual([
      ['addr:race-0', 7],
      ['addr:race-1', 7],
      ['addr:race-2', 6],
      [key, 20],
    ]);
  });

  // Moves the shared clock: kept after the tests that rely on their locks.
  it('a lock ends after 15 minutes (fixed): the right password signs in, and the window starts over', async () => {
    const h = harness();
    for (let i = 0; i < 5; i++) expect((await login(k, `127.0.8.${i + 1}`, 'nainai', 'x')).status).toBe(401);
    h.clock.advance(10 * MINUTE);
    expect(await login(k, '127.0.8.9', 'nainai', 'demo-nainai')).toMatchObject({
      status: 429,
      retryAfter: '300',
    });
    h.clock.advance(5 * MINUTE);
    expect((await login(k, '127.0.8.9', 'nainai', 'demo-nainai')).status).toBe(200);
    // The count starts again from zero: four more failures are still 401s.
    for (let i = 0; i < 4; i++) expect((await login(k, `127.0.8.${i + 1}`, 'nainai', 'x')).status).toBe(401);
  });

  it('failures older than the window are forgotten, and stale rows are swept', async () => {
    const h = harness();
    const throttle = createLoginThrottle(h.db, () => h.clock.now);
    const old = usernameKey('forgetful');
    for (let i = 0; i < 4; i++) await throttle.recordFailure([old]);
    h.clock.advance(16 * MINUTE);
    await throttle.recordFailure([old]); // the 5th, but the first four are out of the window: no lock
    expect(await throttle.lockedFor([old])).toBe(0);
    h.clock.advance(16 * MINUTE);
    for (let i = 0; i < 45; i++) await throttle.recordFailure([`addr:sweep-${i}`]); // the 50th sweeps
    const left = await h.db.query('SELECT 1 FROM login_failures WHERE key = $1', [old]);
    expect(left).toHaveLength(0);
    expect(await h.db.query("SELECT 1 FROM login_failures WHERE key LIKE 'addr:sweep-%'")).toHaveLength(45);
  });

  it('the gate refuses password checks past its places at once: 503 with Retry-After: 1', async () => {
    const h = harness();
    const held: (() => void)[] = [];
    const gate = createHashGate({ concurrency: 1, queue: 2, queuePerKey: 1 });
    const gated = await kitchen(h, {
      gate,
      // Each check waits until the test lets it go.
      verifyPassword: () => new Promise<boolean>((resolve) => held.push(() => resolve(false))),
    });
    try {
      const first = login(gated, '127.0.9.1', 'gate-1', 'x'); // checking
      await until(() => held.length === 1);
      const second = login(gated, '127.0.9.1', 'gate-2', 'x'); // waiting (127.0.9.1's one place)
      await until(() => gate.waiting === 1);
      // Answered while both are still held: it did not wait for them.
      const third = await login(gated, '127.0.9.1', 'gate-3', 'x');
      expect(third).toEqual({
        status: 503,
        body: {
          error: { code: 'SERVICE_UNAVAILABLE', message: 'too many sign-ins at once: try again in a second' },
        },
        retryAfter: '1',
      });
      const fromElsewhere = login(gated, '127.0.9.2', 'gate-4', 'x'); // the queue's last place
      await until(() => gate.waiting === 2);
      expect((await login(gated, '127.0.9.3', 'gate-5', 'x')).status).toBe(503); // queue full
      while ((await Promise.race([Promise.all([first, second, fromElsewhere]), tick()])) === undefined)
        held.shift()?.();
      expect((await Promise.all([first, second, fromElsewhere])).map((r) => r.status)).toEqual([
        401, 401, 401,
      ]);
    } finally {
      await gated.close();
    }
  });
});

it('the settings: REINS_LOGIN_* and REINS_TRUST_PROXY, checked and printed at start', () => {
  const defaults = readConfig({});
  expect([defaults.login, defaults.trustProxy]).toEqual([
    { maxFailures: 5, windowMs: 900_000, lockMs: 900_000, hashConcurrency: 2, hashQueue: 16 },
    0,
  ]);
  expect(describeConfig(defaults)).toContain(
    'logins: 5 failures in 15 min lock 15 min, 2 checked at once + 16 waiting',
  );
  const set = readConfig({
    REINS_LOGIN_MAX_FAILURES: '10',
    REINS_LOGIN_WINDOW_MS: '60000',
    REINS_LOGIN_LOCK_MS: '120000',
    REINS_LOGIN_HASH_CONCURRENCY: '3',
    REINS_LOGIN_HASH_QUEUE: '0',
    REINS_TRUST_PROXY: '1',
  });
  expect([set.login, set.trustProxy]).toEqual([
    { maxFailures: 10, windowMs: 60_000, lockMs: 120_000, hashConcurrency: 3, hashQueue: 0 },
    1,
  ]);
  expect(describeConfig(set)).toContain('client address from X-Forwarded-For (1 proxies)');
  expect(() => readConfig({ REINS_LOGIN_MAX_FAILURES: '0' })).toThrow(ConfigError);
  expect(() => readConfig({ REINS_LOGIN_HASH_CONCURRENCY: 'two' })).toThrow(/REINS_LOGIN_HASH_CONCURRENCY/);
  expect(() => readConfig({ REINS_TRUST_PROXY: '-1' })).toThrow(/REINS_TRUST_PROXY must be a whole number/);
});

const tick = () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20));

async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ready(); i++) await tick();
  if (!ready()) throw new Error('timed out');
}
