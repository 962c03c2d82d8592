import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  memoryLimitStore,
  NON_QUEUEING_REDIS_OPTIONS,
  redisLimitStore,
  type LimitStore,
} from '@reins/server';

const prefix = `reins-test:limits:${process.pid}:${Date.now()}:`;
let admin: Redis;

beforeAll(() => {
  // A missing Redis fails these tests (offline queue on: commands wait for the connection, then fail).
  admin = new Redis('redis://127.0.0.1:6379', { ...NON_QUEUEING_REDIS_OPTIONS, enableOfflineQueue: true });
});
afterAll(async () => {
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hold = (id: string, amount: number, ttlMs = 60_000) => ({ id, amount, ttlMs });

/** One contract, every implementation (memory for the embedded default, Redis for shared mode). */
describe.each([
  ['memory', () => memoryLimitStore()],
  ['redis', () => redisLimitStore(admin, { prefix: `${prefix}${Math.random()}:` })],
] as const)('limit store contract: %s', (_name, make: () => LimitStore) => {
  it('reserves while used + held + amount fits the limit, refuses past it, force skips the check', async () => {
    const store = make();
    expect(await store.reserve('q', hold('a', 4), 10, 60_000, false)).toEqual({ ok: true, used: 0, held: 4 });
    expect(await store.reserve('q', hold('b', 4), 10, 60_000, false)).toEqual({ ok: true, used: 0, held: 8 });
    expect(await store.reserve('q', hold('c', 4), 10, 60_000, false)).toEqual({
      ok: false,
      used: 0,
      held: 8,
    });
    expect((await store.reserve('q', hold('c', 4), 10, 60_000, true)).ok).toBe(true);
    expect(await store.usage('q')).toEqual({ used: 0, held: 12 });
    // The same id replaces its hold (a rebuilt run is not held twice).
    await store.reserve('q', hold('c', 1), 10, 60_000, true);
    expect(await store.usage('q')).toEqual({ used: 0, held: 9 });
  });

  it('charge counts calls and takes them off the hold; release gives back the rest', async () => {
    const store = make();
    await store.reserve('q', hold('a', 4), 10, 60_000, false);
    expect(await store.charge('q', 'a', 1, 60_000, 60_000)).toBe(1);
    expect(await store.charge('q', 'a', 1, 60_000, 60_000)).toBe(2);
    expect(await store.usage('q')).toEqual({ used: 2, held: 2 });
    await store.release('q', 'a');
    expect(await store.usage('q')).toEqual({ used: 2, held: 0 });
    // A charge past the hold (or with no hold) still counts; the hold never goes negative.
    await store.reserve('q', hold('b', 1), 10, 60_000, false);
    await store.charge('q', 'b', 3, 60_000, 60_000);
    expect(await store.usage('q')).toEqual({ used: 5, held: 0 });
    expect(await store.reserve('q', hold('c', 6), 10, 60_000, false)).toMatchObject({ ok: false, used: 5 });
    expect(await store.reserve('q', hold('c', 5), 10, 60_000, false)).toMatchObject({ ok: true });
  });

  it('an expired hold counts for nothing (a crashed instance does not leak its reservations)', async () => {
    const store = make();
    await store.reserve('q', hold('a', 8, 40), 10, 60_000, false);
    expect((await store.reserve('q', hold('b', 8), 10, 60_000, false)).ok).toBe(false);
    await sleep(80);
    expect(await store.usage('q')).toEqual({ used: 0, held: 0 });
    expect((await store.reserve('q', hold('b', 8), 10, 60_000, false)).ok).toBe(true);
  });

  it('reservations are atomic: 50 at once against room for 5 → exactly 5 admitted', async () => {
    const store = make();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.reserve('q', hold(`r${i}`, 4), 20, 60_000, false)),
    );
    expect(replies.filter((r) => r.ok)).toHaveLength(5);
    expect(await store.usage('q')).toEqual({ used: 0, held: 20 });
  });

  it('slots: up to max, the same id again is no new slot, release frees one, force skips the check', async () => {
    const store = make();
    for (const id of ['a', 'b', 'c'])
      expect((await store.acquireSlot('s', id, 3, 60_000, false)).ok).toBe(true);
    expect(await store.acquireSlot('s', 'd', 3, 60_000, false)).toEqual({ ok: false, count: 3 });
    expect(await store.acquireSlot('s', 'a', 3, 60_000, false)).toEqual({ ok: true, count: 3 });
    await store.releaseSlot('s', 'b');
    expect(await store.acquireSlot('s', 'd', 3, 60_000, false)).toEqual({ ok: true, count: 3 });
    expect(await store.acquireSlot('s', 'e', 3, 60_000, true)).toEqual({ ok: true, count: 4 });
  });

  it('slots expire (bounded leaks) and are atomic under concurrency', async () => {
    const store = make();
    await store.acquireSlot('s', 'old', 1, 40, false);
    expect((await store.acquireSlot('s', 'new', 1, 60_000, false)).ok).toBe(false);
    await sleep(80);
    expect((await store.acquireSlot('s', 'new', 1, 60_000, false)).ok).toBe(true);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.acquireSlot('t', `x${i}`, 3, 60_000, false)),
    );
    expect(replies.filter((r) => r.ok)).toHaveLength(3);
  });
});
