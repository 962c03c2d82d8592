import type { Redis } from 'ioredis';
import type { LimitStore } from './limit-store.js';
import { redisCounterStore } from './redis-counter-store.js';

// Every script reads the clock of Redis (TIME), so instances with skewed clocks agree on expiries.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// A quota is a hash: `used` → calls used; `h:<id>` → "<amount>:<expiresAt>" per hold.
// Sums the live holds except `skip`, deleting expired ones; sets the key's TTL if it has none.
const HOLDS = `${NOW}
local function holds(key, skip)
  local fields = redis.call('HGETALL', key)
  local used, held = 0, 0
  for i = 1, #fields, 2 do
    local f, v = fields[i], fields[i + 1]
    if f == 'used' then used = tonumber(v)
    elseif f ~= skip then
      local sep = string.find(v, ':', 1, true)
      if tonumber(string.sub(v, sep + 1)) <= now then redis.call('HDEL', key, f)
      else held = held + tonumber(string.sub(v, 1, sep - 1)) end
    end
  end
  return used, held
end
local function expire(key, ttl)
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ttl) end
end`;

// KEYS[1] quota; ARGV: holdId, amount, holdTtlMs, limit, keyTtlMs, force → {ok, used, held}
const RESERVE = `${HOLDS}
local field = 'h:' .. ARGV[1]
local used, held = holds(KEYS[1], field)
local amount = tonumber(ARGV[2])
if ARGV[6] ~= '1' and used + held + amount > tonumber(ARGV[4]) then return {0, used, held} end
redis.call('HSET', KEYS[1], field, amount .. ':' .. (now + tonumber(ARGV[3])))
expire(KEYS[1], ARGV[5])
return {1, used, held + amount}`;

// KEYS[1] quota; ARGV: holdId, amount, holdTtlMs, keyTtlMs → used
const CHARGE = `${HOLDS}
local field = 'h:' .. ARGV[1]
local used = redis.call('HINCRBY', KEYS[1], 'used', ARGV[2])
local v = redis.call('HGET', KEYS[1], field)
if v then
  local left = tonumber(string.sub(v, 1, string.find(v, ':', 1, true) - 1)) - tonumber(ARGV[2])
  if left < 0 then left = 0 end
  redis.call('HSET', KEYS[1], field, left .. ':' .. (now + tonumber(ARGV[3])))
end
expire(KEYS[1], ARGV[4])
return used`;

const USAGE = `${HOLDS}
local used, held = holds(KEYS[1], '')
return {used, held}`;

// KEYS[1] slot set (a sorted set scored by expiry); ARGV: slotId, max, ttlMs, force → {ok, count}
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local count = redis.call('ZCARD', KEYS[1])
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not mine and ARGV[4] ~= '1' and count >= tonumber(ARGV[2]) then return {0, count} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, redis.call('ZCARD', KEYS[1])}`;

/** The limits in Redis (shared mode): every check-and-update is one Lua script. */
export function redisLimitStore(client: Redis, options: { prefix?: string } = {}): LimitStore {
  const prefix = options.prefix ?? 'reins:';
  const counters = redisCounterStore(client, { prefix });
  const numbers = (reply: unknown): number[] => (reply as unknown[]).map(Number);
  return {
    ...counters,
    reserve: async (key, hold, limit, keyTtlMs, force) => {
      const reply = await client.eval(
        RESERVE,
        1,
        prefix + key,
        hold.id,
        hold.amount,
        hold.ttlMs,
        limit,
        keyTtlMs,
        force ? '1' : '0',
      );
      const [ok, used = 0, held = 0] = numbers(reply);
      return { ok: ok === 1, used, held };
    },
    charge: async (key, holdId, amount, holdTtlMs, keyTtlMs) =>
      Number(await client.eval(CHARGE, 1, prefix + key, holdId, amount, holdTtlMs, keyTtlMs)),
    release: async (key, holdId) => {
      await client.hdel(prefix + key, `h:${holdId}`);
    },
    usage: async (key) => {
      const [used = 0, held = 0] = numbers(await client.eval(USAGE, 1, prefix + key));
      return { used, held };
    },
    acquireSlot: async (key, slotId, max, ttlMs, force) => {
      const reply = await client.eval(ACQUIRE, 1, prefix + key, slotId, max, ttlMs, force ? '1' : '0');
      const [ok, count = 0] = numbers(reply);
      return { ok: ok === 1, count };
    },
    releaseSlot: async (key, slotId) => {
      await client.zrem(prefix + key, slotId);
    },
  };
}
