import { afterEach, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../src/cli/config.js';
import { main } from '../src/cli/main.js';

/*
 * README: "The configuration is printed on stderr at start-up (a Redis password masked); a bad
 * command line exits 2." config.ts reads "everything the command reads from its arguments and
 * environment, in one place", and describeConfig already printed "(unparseable REDIS_URL)" —
 * but main then handed that URL to ioredis, whose `new URL()` throws: the command died with an
 * uncaught TypeError ("Invalid URL") and a stack trace instead of a coded error and exit 2.
 */
afterEach(() => vi.restoreAllMocks());

describe('nutrition-mcp with an unparseable REDIS_URL', () => {
  it.each(['redis://127.0.0.1:99999', 'redis://[oops'])(
    'REDIS_URL=%s: exits 2 with a coded message naming REDIS_URL, does not throw',
    async (url) => {
      const errors: string[] = [];
      vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
      const outcome = await main(['--http', '--port', '0'], { REDIS_URL: url }).then(
        (code) => ({ code }),
        (thrown: unknown) => ({ thrown: String(thrown) }),
      );
      expect(outcome).toEqual({ code: 2 });
      expect(errors.join('\n')).toMatch(/INVALID_PARAMETER.*REDIS_URL|REDIS_URL.*INVALID_PARAMETER/s);
    },
  );
});

describe('REDIS_URL in the configuration', () => {
  it.each(['http://127.0.0.1:6379', 'redis://:6379', '127.0.0.1:6379'])(
    'refuses %s, without echoing it',
    (url) => {
      const outcome = readConfig(['--stdio'], { REDIS_URL: url });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
      expect(!outcome.ok && outcome.error.message).not.toContain(url);
    },
  );

  it.each(['redis://127.0.0.1:6379', 'rediss://user:secret@cache.internal:6380/2'])('accepts %s', (url) => {
    expect(readConfig(['--stdio'], { REDIS_URL: url })).toMatchObject({
      ok: true,
      config: { redisUrl: url },
    });
  });
});
