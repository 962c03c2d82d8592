import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, readConfig } from '../src/config.js';

describe('limit settings', () => {
  it('default to the server defaults (nothing set), the drain grace to 10 s, health checks every 5 s', () => {
    const config = readConfig({});
    expect(config.quota).toEqual({});
    expect(config.drainGraceMs).toBe(10_000);
    expect(config.healthIntervalMs).toBe(5_000);
    expect(readConfig({ REINS_HEALTH_INTERVAL_MS: '250' }).healthIntervalMs).toBe(250);
    expect(() => readConfig({ REINS_HEALTH_INTERVAL_MS: '0' })).toThrow(/REINS_HEALTH_INTERVAL_MS/);
  });

  it('take positive whole numbers, or off', () => {
    const config = readConfig({
      REINS_DAILY_MODEL_CALLS: '50',
      REINS_MAX_CONCURRENT_RUNS: 'off',
      REINS_USER_RUNS_PER_MINUTE: ' 7 ',
      REINS_SAME_QUERY_PER_MINUTE: 'OFF',
      REINS_DRAIN_GRACE_MS: '2500',
    });
    expect(config.quota).toEqual({
      dailyModelCalls: 50,
      maxConcurrentRuns: Infinity,
      userRunsPerMinute: 7,
      ratePerWindow: Infinity,
    });
    expect(config.drainGraceMs).toBe(2_500);
  });

  it.each(['0', '-1', '2.5', 'lots', 'Infinity'])('refuse %j, naming the setting', (bad) => {
    expect(() => readConfig({ REINS_MAX_CONCURRENT_RUNS: bad })).toThrow(ConfigError);
    expect(() => readConfig({ REINS_MAX_CONCURRENT_RUNS: bad })).toThrow(
      /REINS_MAX_CONCURRENT_RUNS must be a positive whole number or off/,
    );
  });
});

describe('the run codec thread', () => {
  it('encodes stored events in a worker thread unless REINS_CODEC_THREAD=off, on either database', () => {
    expect(readConfig({}).codecThread).toBe(true);
    expect(readConfig({ DATABASE_URL: 'postgres://127.0.0.1/test' }).codecThread).toBe(true);
    expect(readConfig({ REINS_CODEC_THREAD: 'off' }).codecThread).toBe(false);
    expect(
      readConfig({ DATABASE_URL: 'postgres://127.0.0.1/test', REINS_CODEC_THREAD: 'off' }).codecThread,
    ).toBe(false);
    expect(readConfig({ REINS_CODEC_THREAD: 'on' }).codecThread).toBe(true);
    expect(describeConfig(readConfig({}))).toContain('events encoded in a worker thread');
    expect(describeConfig(readConfig({ REINS_CODEC_THREAD: 'off' }))).toContain(
      'events encoded in the main thread',
    );
    expect(() => readConfig({ REINS_CODEC_THREAD: 'sometimes' })).toThrow(
      /REINS_CODEC_THREAD must be on or off/,
    );
  });
});

describe('embedded database settings', () => {
  it('PGlite runs in a worker thread unless REINS_PGLITE_THREAD=off; the idle deadline defaults to 5 s', () => {
    const config = readConfig({});
    expect(config).toMatchObject({ pgliteThread: true, pgliteTxIdleTimeoutMs: 5_000 });
    expect(describeConfig(config)).toContain('(in a worker thread)');
    const off = readConfig({ REINS_PGLITE_THREAD: 'off', REINS_PGLITE_TX_IDLE_TIMEOUT_MS: '800' });
    expect(off).toMatchObject({ pgliteThread: false, pgliteTxIdleTimeoutMs: 800 });
    expect(describeConfig(off)).toContain('(in the main thread)');
    expect(() => readConfig({ REINS_PGLITE_THREAD: 'sometimes' })).toThrow(
      /REINS_PGLITE_THREAD must be on or off/,
    );
    expect(() => readConfig({ REINS_PGLITE_TX_IDLE_TIMEOUT_MS: '0' })).toThrow(
      /REINS_PGLITE_TX_IDLE_TIMEOUT_MS must be a positive whole number/,
    );
  });
});

describe('the prompt debugger setting', () => {
  it('keeps prompts unless REINS_RECORD_PROMPTS=off; anything but on / off is refused, naming it', () => {
    expect(readConfig({}).recordPrompts).toBe(true);
    expect(readConfig({ REINS_RECORD_PROMPTS: 'off' }).recordPrompts).toBe(false);
    expect(readConfig({ REINS_RECORD_PROMPTS: 'on' }).recordPrompts).toBe(true);
    expect(() => readConfig({ REINS_RECORD_PROMPTS: 'verbose' })).toThrow(
      /REINS_RECORD_PROMPTS must be on or off/,
    );
  });
});
