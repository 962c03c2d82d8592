import { describe, expect, it } from 'vitest';
import { describeConfig, readConfig } from '../src/cli/config.js';

describe('readConfig', () => {
  it('reads the transport, port, host and REDIS_URL', () => {
    expect(readConfig(['--http', '--port', '0'], {})).toEqual({
      ok: true,
      config: { transport: 'http', host: '127.0.0.1', port: 0, redisUrl: undefined, token: undefined },
    });
    expect(readConfig(['--stdio'], { REDIS_URL: 'redis://127.0.0.1:6379' })).toMatchObject({
      ok: true,
      config: { transport: 'stdio', port: 8788, redisUrl: 'redis://127.0.0.1:6379' },
    });
  });

  it.each([
    [[]],
    [['--stdio', '--http']],
    [['--http', '--port', 'x']],
    [['--http', '--port']],
    [['--bogus']],
  ])('refuses %j with INVALID_PARAMETER', (argv) => {
    expect(readConfig(argv, {})).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
  });

  it('masks a Redis password when printing the configuration', () => {
    const outcome = readConfig(['--stdio'], { REDIS_URL: 'redis://user:s3cret@127.0.0.1:6379' });
    if (!outcome.ok) throw new Error('config');
    expect(describeConfig(outcome.config)).not.toContain('s3cret');
    expect(describeConfig(outcome.config)).toContain('***');
  });
});
