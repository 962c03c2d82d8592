import type { Redis } from 'ioredis';
import type { BreakerState, BreakerStore } from 'reins';
import { failOpen } from './fail-open.js';

// A breaker is a hash: failures (consecutive), openUntil (0: closed), probeUntil (a probe's lease).
// States: 0 closed, 1 open, 2 half-open. Time is Redis's (TIME): instances agree on it.
const STATE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
local openUntil = tonumber(redis.call('HGET', KEYS[1], 'openUntil') or '0')
local probeUntil = tonumber(redis.call('HGET', KEYS[1], 'probeUntil') or '0')
local function state()
  if openUntil == 0 then return 0 elseif openUntil > now then return 1 else return 2 end
end`;

// ARGV: probeLeaseMs → {verdict (0 pass, 1 probe, 2 refuse), state}
const ADMIT = `${STATE}
local s = state()
if s == 0 then return {0, s} end
if s == 1 or probeUntil > now then return {2, s} end
redis.call('HSET', KEYS[1], 'probeUntil', now + tonumber(ARGV[1]))
return {1, s}`;

// ARGV: failed, probe, failuresToOpen, openMs, keyTtlMs → state
const RECORD = `${STATE}
if ARGV[2] == '1' then
  failures = 0
  if ARGV[1] == '1' then openUntil = now + tonumber(ARGV[4]) else openUntil = 0 end
  redis.call('HSET', KEYS[1], 'failures', 0, 'openUntil', openUntil, 'probeUntil', 0)
elseif openUntil == 0 then
  if ARGV[1] == '1' then failures = failures + 1 else failures = 0 end
  if failures >= tonumber(ARGV[3]) then
    failures = 0
    openUntil = now + tonumber(ARGV[4])
  end
  redis.call('HSET', KEYS[1], 'failures', failures, 'openUntil', openUntil)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return state()`;

const STATES: readonly BreakerState[] = ['closed', 'open', 'half_open'];
const VERDICTS = ['pass', 'probe', 'refuse'] as const;

export interface RedisBreakerOptions {
  /** Default `reins:`; keys are `<prefix>breaker:<tool>`. */
  readonly prefix?: string;
  /** A probe that never reports (its instance died) frees its turn after this; default 60 000. */
  readonly probeLeaseMs?: number;
  /** Each operation's deadline, then it fails open (the call goes on, nothing is recorded); default 50. */
  readonly deadlineMs?: number;
  /** Told each time an operation failed open (the server counts it in `reins_quota_fail_open_total`). */
  readonly onFailOpen?: (operation: 'breaker_check' | 'breaker_record', reason: string) => void;
}

/**
 * Tool circuit breakers in Redis (shared mode): a breaker opened through one instance refuses
 * on every other. Each operation is one Lua script; Redis away → fail open (the call is let
 * through, closed), within `deadlineMs`. A breaker's key lapses `openMs` + the lease after its
 * last report (a count of failures that old is no longer consecutive).
 */
export function redisBreakerStore(client: Redis, options: RedisBreakerOptions = {}): BreakerStore {
  const prefix = options.prefix ?? 'reins:';
  const lease = options.probeLeaseMs ?? 60_000;
  const deadline = options.deadlineMs ?? 50;
  const report = options.onFailOpen ?? (() => {});
  return {
    admit: async (tool) => {
      const reply = await failOpen(
        () => client.eval(ADMIT, 1, `${prefix}breaker:${tool}`, lease),
        deadline,
        (reason) => report('breaker_check', reason),
      );
      if (reply === undefined) return { verdict: 'pass', state: 'closed' };
      const [verdict, state] = (reply as unknown[]).map(Number);
      return { verdict: VERDICTS[verdict ?? 0] ?? 'pass', state: STATES[state ?? 0] ?? 'closed' };
    },
    record: async (tool, settings, failed, probe) => {
      const reply = await failOpen(
        () =>
          client.eval(
            RECORD,
            1,
            `${prefix}breaker:${tool}`,
            failed ? '1' : '0',
            probe ? '1' : '0',
            settings.failures,
            settings.openMs,
            settings.openMs + lease,
          ),
        deadline,
        (reason) => report('breaker_record', reason),
      );
      return STATES[Number(reply ?? 0)] ?? 'closed';
    },
  };
}
