import { Redis } from 'ioredis';
import type { CacheStore } from './cache-store.js';

export interface RedisCacheStoreOptions {
  /** e.g. `redis://127.0.0.1:6379` */
  readonly url: string;
  /** Per command; past it the command fails (a miss). Default 200 ms. */
  readonly commandTimeoutMs?: number;
  /** Told about connection errors (they are otherwise swallowed: a cache must not crash the server). */
  readonly onError?: (error: Error) => void;
}

/**
 * A shared cache in Redis. The client never queues while Redis is away
 * (`enableOfflineQueue: false`, one try per command, a short command timeout), so a Redis
 * that is down costs a quick miss, not a hanging lookup; it reconnects in the background.
 */
export function redisCacheStore(options: RedisCacheStoreOptions): CacheStore {
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 200,
    connectTimeout: 1_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  redis.on('error', (error: Error) => options.onError?.(error));
  return {
    backend: 'redis',
    get: async (key) => (await redis.get(key)) ?? undefined,
    set: async (key, value, ttlMs) => {
      await redis.set(key, value, 'PX', Math.max(1, Math.round(ttlMs)));
    },
    state: () => (redis.status === 'ready' ? 'ready' : 'down'),
    close: async () => {
      redis.disconnect();
    },
  };
}
