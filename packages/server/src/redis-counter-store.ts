import { Redis, type RedisOptions } from 'ioredis';
import type { CounterStore, WindowCount } from './counter-store.js';

/**
 * Options for a Redis client that never queues: while Redis is away a command fails at once
 * (no offline queue, at most one retry, a command timeout), so a quota check costs a quick
 * failure, never a wait. `createRedisClient` applies them; pass your own client only if it was
 * made the same way.
 */
export const NON_QUEUEING_REDIS_OPTIONS: Readonly<RedisOptions> = Object.freeze({
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 200,
  connectTimeout: 1_000,
  // Reconnect in the background, never faster than every 200 ms and at most every 2 s.
  retryStrategy: (times: number) => Math.min(200 * times, 2_000),
});

/** A client for `url` with the non-queueing options; its `error` events are passed to `onError` (else dropped: they are reported where commands fail). */
export function createRedisClient(url: string, onError: (error: Error) => void = () => {}): Redis {
  const client = new Redis(url, { ...NON_QUEUEING_REDIS_OPTIONS });
  client.on('error', onError);
  return client;
}

// INCRBY and set the window on the first increment, in one round trip; returns [count, pttl].
const ADD_SCRIPT = `
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {n, ttl}`;

const PEEK_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if not v then return {0, 0} end
return {tonumber(v), redis.call('PTTL', KEYS[1])}`;

/** Counters in Redis (shared mode): every instance sees the same counts. */
export function redisCounterStore(client: Redis, options: { prefix?: string } = {}): CounterStore {
  const prefix = options.prefix ?? 'reins:';
  const pair = (reply: unknown): WindowCount => {
    const [count, ttl] = reply as [number, number];
    return { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
  };
  return {
    name: 'redis',
    add: async (key, amount, windowMs) =>
      pair(await client.eval(ADD_SCRIPT, 1, prefix + key, amount, windowMs)),
    peek: async (key) => pair(await client.eval(PEEK_SCRIPT, 1, prefix + key)),
    ping: async () => {
      await client.ping();
    },
  };
}
