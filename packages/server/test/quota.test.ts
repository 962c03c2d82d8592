import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import {
  createRedisClient,
  memoryCounterStore,
  memoryLimitStore,
  QuotaGuard,
  NON_QUEUEING_REDIS_OPTIONS,
  redisCounterStore,
  type CounterStore,
} from '@reins/server';
import { failOpen } from '../src/fail-open.js';
import { as, final, memoryLogger, postJson, start, type Started } from './helpers.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `reins-test:${process.pid}:${Date.now()}:`;
let admin: Redis;
let running: Started | undefined;

beforeAll(() => {
  admin = new Redis(REDIS_URL, { ...NON_QUEUEING_REDIS_OPTIONS, enableOfflineQueue: true });
});
afterAll(async () => {
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A non-queueing client fails (open) until it is connected: tests wait for that. */
async function readyClient(): Promise<Redis> {
  const redis = createRedisClient(REDIS_URL);
  if (redis.status !== 'ready') await new Promise((r) => redis.once('ready', r));
  return redis;
}

// maxSteps 1: a run reserves (and makes) one model call.
const oneCallAgent = () => ({
  model: scriptModel(Array.from({ length: 10 }, () => final('ok'))),
  limits: { maxSteps: 1 },
});

/** The same contract for every counter store (CONVENTIONS: one suite, every implementation). */
describe.each([
  ['memory', () => memoryCounterStore()],
  ['redis', () => redisCounterStore(admin, { prefix: `${prefix}contract:${Math.random()}:` })],
] as const)('counter store contract: %s', (_name, make: () => CounterStore) => {
  it('counts within a window, reports the time left, peeks without counting', async () => {
    const store = make();
    expect(await store.peek('k')).toEqual({ count: 0, resetInMs: 0 });
    expect((await store.add('k', 1, 60_000)).count).toBe(1);
    const second = await store.add('k', 2, 60_000);
    expect(second.count).toBe(3);
    expect(second.resetInMs).toBeGreaterThan(59_000);
    expect(second.resetInMs).toBeLessThanOrEqual(60_000);
    expect((await store.peek('k')).count).toBe(3);
    expect((await store.peek('k')).count).toBe(3);
  });

  it('starts a new window after the old one expired', async () => {
    const store = make();
    await store.add('short', 5, 50);
    await new Promise((r) => setTimeout(r, 80));
    expect((await store.add('short', 1, 50)).count).toBe(1);
  });
});

describe('daily model-call quota (real Redis)', () => {
  it('admits while calls are left, counts each model call, then refuses with 429 + Retry-After', async () => {
    const redis = await readyClient();
    running = await start({
      agents: { a: oneCallAgent() },
      redis,
      redisPrefix: prefix,
      // Counting is under test, not failing open: a loaded machine must not push a Redis call past
      // the 50 ms default (the count would then be skipped by design and `used` stay at 1).
      quota: { dailyModelCalls: 2, deadlineMs: 5_000 },
    });
    for (let i = 0; i < 2; i++) {
      const ok = await postJson(`${running.url}/v1/runs`, { agent: 'a', input: `q${i}` }, as('carol'));
      expect(ok.status).toBe(200);
    }
    const day = new Date().toISOString().slice(0, 10);
    await expect.poll(() => admin.hget(`${prefix}quota:${day}:carol`, 'used')).toBe('2');
    await expect.poll(() => running?.server.quota.usage('carol')).toEqual({ used: 2, held: 0 });
    const refused = await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'q3' }, as('carol'));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 'QUOTA_EXCEEDED' } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // Another user is not affected.
    expect((await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'q3' }, as('dave'))).status).toBe(
      200,
    );
    expect(await admin.pttl(`${prefix}quota:${day}:carol`)).toBeGreaterThan(0);
    redis.disconnect();
  });
});

describe('rate limit per (IP, query)', () => {
  it.each([['memory'], ['redis']] as const)(
    '%s: the 6th identical request in a minute → 429 + Retry-After',
    async (kind) => {
      const redis = kind === 'redis' ? await readyClient() : undefined;
      running = await start({
        agents: { a: oneCallAgent() },
        ...(redis === undefined ? {} : { redis, redisPrefix: `${prefix}${Math.random()}:` }),
        quota: { deadlineMs: 5_000 }, // counting under test: a slow machine must not fail a count open
      });
      for (let i = 0; i < 5; i++) {
        expect(
          (await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'Same  question' }, as('u'))).status,
        ).toBe(200);
      }
      const refused = await postJson(
        `${running.url}/v1/runs`,
        { agent: 'a', input: 'same question' },
        as('u'),
      );
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // A different question from the same address is another key.
      expect((await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'other' }, as('u'))).status).toBe(
        200,
      );
      redis?.disconnect();
    },
  );
});

describe('the quota fails open', () => {
  let blackHole: Server;
  let blackHolePort = 0;
  const sockets: Socket[] = [];
  let closedPort = 0;

  beforeAll(async () => {
    // Accepts connections and never answers a byte.
    blackHole = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
    blackHolePort = (blackHole.address() as { port: number }).port;
    // A port that was just free: nothing listens there (connection refused).
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => blackHole.close(() => r()));
  });

  async function expectFailOpen(redis: Redis | string, minFailOpens: number) {
    const { logger, lines } = memoryLogger('warn');
    running = await start({ agents: { a: oneCallAgent() }, redis, logger, quota: { dailyModelCalls: 1 } });
    await new Promise((r) => setTimeout(r, 100)); // let the client try to connect
    const began = performance.now();
    const response = await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'q' }, as('erin'));
    const tookMs = performance.now() - began;
    expect(response.status).toBe(200);
    expect(response.body.record).toMatchObject({ status: 'success' });
    // Two rounds of checks at once (rate limits; run slot and quota) of at most 50 ms each, plus the run.
    expect(tookMs).toBeLessThan(400);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    const total = [...metrics.matchAll(/^reins_quota_fail_open_total\{[^}]*\} (\d+)$/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(total).toBeGreaterThanOrEqual(minFailOpens);
    expect(lines.some((l) => l.msg === 'quota store failed or was late: request allowed (fail open)')).toBe(
      true,
    );
    const health = (await (await fetch(`${running.url}/health`)).json()) as {
      status: string;
      checks: Record<string, { status: string }>;
    };
    expect(health.status).toBe('degraded');
    expect(health.checks.redis?.status).toBe('down');
  }

  it('Redis refusing connections: the run goes on, the fail-open counter rises, a warning is logged', async () => {
    await expectFailOpen(`redis://127.0.0.1:${closedPort}`, 2);
  });

  it('Redis black-holed (accepts, never answers): same, within the deadline', async () => {
    await expectFailOpen(`redis://127.0.0.1:${blackHolePort}`, 2);
  });

  it('a client that sends commands into the black hole (no ready check) is cut off by the 50 ms deadline', async () => {
    const redis = new Redis(`redis://127.0.0.1:${blackHolePort}`, {
      ...NON_QUEUEING_REDIS_OPTIONS,
      enableReadyCheck: false,
      commandTimeout: 5_000, // longer than the test: only our deadline can end the wait
    });
    redis.on('error', () => {});
    await expectFailOpen(redis, 2);
    redis.disconnect();
  });

  it('one 50 ms budget for all the limit checks of a run: black-holed, the checks after the late ones do not wait', async () => {
    // A store that takes every command and never answers (a black-holed Redis, minus the socket details).
    const never = () => new Promise<never>(() => undefined);
    const blackHoled = new Proxy(memoryLimitStore(), {
      get: (target, key, receiver) =>
        key === 'name'
          ? 'black-holed'
          : typeof Reflect.get(target, key, receiver) === 'function'
            ? never
            : undefined,
    });
    const { logger, lines } = memoryLogger('warn');
    running = await start({
      agents: { a: oneCallAgent() },
      limitStore: blackHoled,
      logger,
      quota: { dailyModelCalls: 10 },
    });
    const response = await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'q' }, as('erin'));
    expect(response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100)); // the run's settlement after its end
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    const failOpens = Object.fromEntries(
      [...metrics.matchAll(/^reins_quota_fail_open_total\{operation="(\w+)"\} (\d+)$/gm)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
    // The two rate limits (at once) waited out the run's budget; the slot, the reservation, the
    // charge and the settlement after them were not even sent: counted, not logged, not waited for.
    expect(failOpens['rate_limit']).toBe(2);
    expect(failOpens['run_slot']).toBeGreaterThanOrEqual(1);
    expect(failOpens['quota_check']).toBe(1);
    expect(failOpens['quota_count']).toBe(1);
    const logged = lines.filter(
      (l) => l.msg === 'quota store failed or was late: request allowed (fail open)',
    );
    expect(logged.map((l) => (l as { operation?: string }).operation)).toEqual(['rate_limit', 'rate_limit']);
  });

  it('failOpen: a never-settling operation resolves undefined at the deadline and is reported', async () => {
    const reasons: string[] = [];
    const began = performance.now();
    const value = await failOpen(
      () => new Promise<number>(() => {}),
      30,
      (r) => reasons.push(r),
    );
    expect(value).toBeUndefined();
    expect(performance.now() - began).toBeLessThan(200);
    expect(reasons).toEqual(['no answer within 30 ms']);
    expect(
      await failOpen(
        async () => 7,
        30,
        (r) => reasons.push(r),
      ),
    ).toBe(7);
    expect(reasons).toHaveLength(1);
  });
});

describe('limits turned off', () => {
  it('with both rate limits off, admission asks the limit store nothing (no Redis round trip per run)', async () => {
    const calls: string[] = [];
    const store = memoryLimitStore();
    const spied = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const off = { ratePerWindow: Infinity, userRunsPerMinute: Infinity };
    const guard = new QuotaGuard(spied, off, Date.now, () => undefined);
    for (const principal of [{ id: 'alice' }, { id: 'anonymous' }])
      expect(await guard.rateLimit(principal, '127.0.0.1', 'hello')).toEqual({ ok: true });
    expect(calls).toEqual([]);
    // Only the per-query limit on: one call per attempt.
    const perQuery = new QuotaGuard(spied, { userRunsPerMinute: Infinity }, Date.now, () => undefined);
    await perQuery.rateLimit({ id: 'alice' }, '127.0.0.1', 'hello');
    expect(calls).toEqual(['add']);
  });
});
