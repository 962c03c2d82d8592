import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { memoryReplyStore, reasoningKey, redisReplyStore, withReasoningCache } from '@reins/models';
import type { ModelRequest } from 'reins';
import { scriptModel } from 'reins/testing';

const request = (query: string, observation?: string): ModelRequest => ({
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: query },
    ...(observation === undefined
      ? []
      : [
          { role: 'assistant' as const, content: '{"action":"w"}' },
          { role: 'user' as const, content: observation },
        ]),
  ],
  tools: [],
  signal: new AbortController().signal,
  step: 1,
  finalStep: false,
});
const reply = JSON.stringify({ thought: 't', final: 'cached?' });

describe('reasoning cache', () => {
  it('answers a repeated (model, prompt version, query, last observation) from the cache, within the TTL', async () => {
    let now = 0;
    const inner = scriptModel([reply, reply]);
    const model = withReasoningCache(inner, {
      store: memoryReplyStore(() => now),
      promptVersion: 'p1',
      ttlMs: 300_000,
    });
    expect(await model.call(request('weather?'))).toMatchObject({ ok: true, text: reply });
    expect(await model.call(request('weather?'))).toMatchObject({
      ok: true,
      text: reply,
      model: 'script (cached)',
    });
    expect(inner.calls).toHaveLength(1);
    now = 300_001; // expired
    await model.call(request('weather?'));
    expect(inner.calls).toHaveLength(2);
  });

  it('keys on the query, the last observation and the prompt version; the key format is versioned', () => {
    const a = reasoningKey('m', 'p1', request('q', 'Observation: sunny'));
    expect(a).toMatch(/^reins:reason:v\d+:[0-9a-f]{64}$/);
    expect(reasoningKey('m', 'p1', request('q', 'Observation: sunny'))).toBe(a);
    expect(reasoningKey('m', 'p1', request('q', 'Observation: rain'))).not.toBe(a);
    expect(reasoningKey('m', 'p2', request('q', 'Observation: sunny'))).not.toBe(a);
    expect(reasoningKey('n', 'p1', request('q', 'Observation: sunny'))).not.toBe(a);
  });

  it('does not cache failures, and a failing store is a miss, not an error', async () => {
    const inner = scriptModel([{ error: 'http_500' }, reply, reply]);
    const broken = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
    };
    const model = withReasoningCache(inner, { store: broken, promptVersion: 'p' });
    expect(await model.call(request('q'))).toMatchObject({ ok: false });
    expect(await model.call(request('q'))).toMatchObject({ ok: true });
    expect(await model.call(request('q'))).toMatchObject({ ok: true });
    expect(inner.calls).toHaveLength(3);
  });

  describe('on the real Redis (127.0.0.1:6379)', () => {
    const redis = new Redis({
      host: '127.0.0.1',
      port: 6379,
      enableOfflineQueue: false,
      commandTimeout: 200,
      lazyConnect: true,
    });
    afterAll(() => redis.quit());

    it('shares hits through Redis with a TTL', async () => {
      await redis.connect();
      const version = `test-${Date.now()}`;
      const store = redisReplyStore(redis);
      const first = scriptModel([reply]);
      await withReasoningCache(first, { store, promptVersion: version, ttlMs: 5_000 }).call(
        request('shared?'),
      );
      const second = scriptModel([]); // another instance: must not need its model
      expect(
        await withReasoningCache(second, { store, promptVersion: version }).call(request('shared?')),
      ).toMatchObject({
        ok: true,
        text: reply,
      });
      const key = reasoningKey('script', version, request('shared?'));
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
    });

    it('a Redis that is away is a quick miss', async () => {
      const away = new Redis({
        host: '127.0.0.1',
        port: 1,
        enableOfflineQueue: false,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      away.on('error', () => undefined);
      const inner = scriptModel([reply]);
      const result = await withReasoningCache(inner, {
        store: redisReplyStore(away),
        promptVersion: 'p',
      }).call(request('q'));
      expect(result).toMatchObject({ ok: true });
      away.disconnect();
    });
  });
});
