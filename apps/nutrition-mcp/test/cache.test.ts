import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheKey, CACHE_VERSION, type CacheStore } from '../src/cache/cache-store.js';
import { memoryCacheStore } from '../src/cache/memory-cache-store.js';
import { redisCacheStore } from '../src/cache/redis-cache-store.js';
import { ifctFoods } from '../src/data/ifct-table.js';
import { healthOf } from '../src/service/health.js';
import { createNutritionService } from '../src/service/nutrition-service.js';

/** Counts table reads, so a test can tell a hit (no read) from a miss. */
function countingFoods() {
  const counter = { reads: 0 };
  const foods = () => {
    counter.reads++;
    return ifctFoods();
  };
  return { counter, foods };
}

describe('cache keys', () => {
  it('are nutrition:v<version>:<op>:<normalized query>', () => {
    expect(cacheKey('search', '猪肉')).toMatch(/^nutrition:v\d+:search:猪肉$/);
    expect(cacheKey('code', 'o048')).toMatch(/^nutrition:v\d+:code:o048$/);
    expect(CACHE_VERSION).toBeGreaterThanOrEqual(2); // v1 held the "pork = fat" answers
    expect(() => cacheKey('name', 'x', 0)).toThrow();
  });

  it('normalize the query: one entry for "Pork", " pork " and "ＰＯＲＫ"', async () => {
    const keys: string[] = [];
    const store = memoryCacheStore();
    const spy: CacheStore = {
      ...store,
      set: (key, value, ttl) => (keys.push(key), store.set(key, value, ttl)),
    };
    const service = createNutritionService({ cache: spy });
    await service.search('Pork');
    await service.search(' pork ');
    await service.search('ＰＯＲＫ');
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^nutrition:v\d+:search:pork$/);
  });
});

describe('the lookup cache', () => {
  it('answers a repeated lookup from the store without reading the table', async () => {
    const { counter, foods } = countingFoods();
    const service = createNutritionService({ foods });
    await service.search('猪肉');
    const reads = counter.reads;
    const again = await service.search('猪肉', 2);
    expect(counter.reads).toBe(reads);
    expect(again.candidates.map((c) => c.code)).toEqual(['O048', 'O049']);
    expect(await service.getFood({ code: 'O048' })).toMatchObject({ ok: true, value: { code: 'O048' } });
    const afterGet = counter.reads;
    await service.getFood({ code: 'o048' });
    expect(counter.reads).toBe(afterGet);
  });

  it('a version bump retires old entries without deleting them', async () => {
    const store = memoryCacheStore();
    const stale = JSON.stringify({ query: '猪肉', candidates: [{ code: 'FAT' }], representativeCode: 'FAT' });
    await store.set(cacheKey('search', '猪肉', 1), stale, 60_000);
    const v1 = createNutritionService({ cache: store, cacheVersion: 1 });
    expect((await v1.search('猪肉')).representativeCode).toBe('FAT'); // what v1 callers saw
    const v2 = createNutritionService({ cache: store, cacheVersion: 2 });
    expect((await v2.search('猪肉')).representativeCode).toBe('O048');
    expect(await store.get(cacheKey('search', '猪肉', 1))).toBe(stale); // still there, just never read
    expect(await store.get(cacheKey('search', '猪肉', 2))).toContain('O048');
  });

  it('treats a failing store as a miss, never as an error', async () => {
    const broken: CacheStore = {
      backend: 'redis',
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
      state: () => 'down',
      close: async () => undefined,
    };
    const service = createNutritionService({ cache: broken });
    expect((await service.search('牛肉')).representativeCode).toBe('O025');
    expect(await service.getFood({ name: '豆腐' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(healthOf(service)).toMatchObject({
      status: 'degraded',
      cache: { backend: 'redis', state: 'down' },
    });
  });

  it('treats a damaged entry as a miss', async () => {
    const store = memoryCacheStore();
    await store.set(cacheKey('search', '牛肉'), '{not json', 60_000);
    const service = createNutritionService({ cache: store });
    expect((await service.search('牛肉')).representativeCode).toBe('O025');
  });
});

describe('memoryCacheStore', () => {
  it('expires entries after their TTL', async () => {
    let now = 1_000;
    const store = memoryCacheStore({ now: () => now });
    await store.set('k', 'v', 100);
    expect(await store.get('k')).toBe('v');
    now = 1_100;
    expect(await store.get('k')).toBeUndefined();
  });

  it('is bounded: the least recently used entry goes first', async () => {
    const store = memoryCacheStore({ maxEntries: 2 });
    await store.set('a', '1', 60_000);
    await store.set('b', '2', 60_000);
    await store.get('a'); // a is now more recent than b
    await store.set('c', '3', 60_000);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe('1');
    expect(await store.get('c')).toBe('3');
  });
});

describe('redisCacheStore on the real Redis (127.0.0.1:6379)', () => {
  // A version no real deployment uses: this run's keys cannot collide with anyone's.
  const version = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
  const admin = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, enableOfflineQueue: false });
  const stores: CacheStore[] = [];
  afterAll(async () => {
    const keys = await admin.keys(`nutrition:v${version}:*`);
    if (keys.length > 0) await admin.del(...keys);
    await Promise.all(stores.map((s) => s.close()));
    admin.disconnect();
  });

  async function readyStore(url: string): Promise<CacheStore> {
    const store = redisCacheStore({ url });
    stores.push(store);
    for (let i = 0; i < 50 && store.state() !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
    return store;
  }

  it('shares lookups through Redis, with a TTL, and reports ready', async () => {
    await admin.connect();
    const store = await readyStore('redis://127.0.0.1:6379');
    expect(store.state()).toBe('ready');
    const first = countingFoods();
    await createNutritionService({ cache: store, cacheVersion: version, foods: first.foods }).search('鸡蛋');
    const key = cacheKey('search', '鸡蛋', version);
    expect(await admin.pttl(key)).toBeGreaterThan(0);
    const second = countingFoods();
    const other = createNutritionService({ cache: store, cacheVersion: version, foods: second.foods });
    expect((await other.search('鸡蛋')).representativeCode).toBe('M001');
    expect(second.counter.reads).toBe(0); // served from Redis
  });

  it('a Redis that is not there is a quick miss and a degraded health, not an error', async () => {
    const store = redisCacheStore({ url: 'redis://127.0.0.1:1' }); // nothing listens on port 1
    stores.push(store);
    const service = createNutritionService({ cache: store, cacheVersion: version });
    const started = Date.now();
    expect((await service.search('土豆')).representativeCode).toBe('F006');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(healthOf(service)).toMatchObject({
      status: 'degraded',
      cache: { backend: 'redis', state: 'down' },
    });
  });
});
