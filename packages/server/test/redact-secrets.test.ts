import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { defaultLogger, REDACT_PATHS } from '../src/logging.js';
import { pathSegments, secretRedactor } from '../src/redact-secrets.js';
import { lineSink } from './helpers.js';

const sink = lineSink;
/** A line without what differs from one logger to another. */
const stable = (line: string): string => line.replace(/"time":\d+,"pid":\d+,"hostname":"[^"]*",/, '');

/**
 * An Error with extra own fields and a fixed stack (V8 formats a stack lazily, through the test
 * runner's source maps: two loggers must not depend on when that happens).
 */
function errorWith(message: string, extra: unknown): Error {
  const error = Object.assign(new Error(message), extra as object);
  Object.defineProperty(error, 'stack', {
    value: `Error: ${message}\n    at a test`,
    writable: true,
    configurable: true,
  });
  return error;
}

/** A class instance that shows one field of two (`toJSON`). */
class Shown {
  constructor(
    readonly token: string,
    readonly shown: string,
  ) {}
  toJSON(): { shown: string } {
    return { shown: this.shown };
  }
}

describe('secret redaction in log lines', () => {
  it('blanks every REDACT_PATHS path in lines and child bindings, and nothing else', () => {
    const { stream, lines } = sink();
    const log = defaultLogger(stream);
    const line = {
      authorization: 'Bearer top',
      cookie: 'sid=1',
      headers: { authorization: 'Bearer h', cookie: 'c', 'x-api-key': 'k', accept: 'application/json' },
      req: { headers: { authorization: 'Bearer r', cookie: 'rc', host: 'example' } },
      user: { name: 'xiaojia', password: 'hunter2' },
      config: { apiKey: 'sk-1', token: 't', secret: 's', region: 'cn' },
      token: 'a top-level token is not a listed path',
    };
    const before = structuredClone(line);
    log.info(line, 'hello');
    log
      .child({ client: { token: 'bound' }, headers: { cookie: 'bound' } })
      .child({ user: { secret: 'x' } })
      .info('child');
    const later = log.child({ agent: 'kitchen' });
    later.setBindings({ cfg: { token: 'set later' } });
    later.info('set');
    expect(line).toEqual(before); // the caller's object is not changed
    expect(lines[0]).toMatchObject({
      authorization: '[REDACTED]',
      cookie: '[REDACTED]',
      headers: {
        authorization: '[REDACTED]',
        cookie: '[REDACTED]',
        'x-api-key': '[REDACTED]',
        accept: 'application/json',
      },
      req: { headers: { authorization: '[REDACTED]', cookie: '[REDACTED]', host: 'example' } },
      user: { name: 'xiaojia', password: '[REDACTED]' },
      config: { apiKey: '[REDACTED]', token: '[REDACTED]', secret: '[REDACTED]', region: 'cn' },
      token: 'a top-level token is not a listed path',
      msg: 'hello',
    });
    expect(lines[1]).toMatchObject({
      client: { token: '[REDACTED]' },
      headers: { cookie: '[REDACTED]' },
      user: { secret: '[REDACTED]' },
      msg: 'child',
    });
    expect(lines[2]).toMatchObject({ agent: 'kitchen', cfg: { token: '[REDACTED]' }, msg: 'set' });
  });

  it('keeps a blanked Error an Error, with its message and stack', () => {
    const redact = secretRedactor(REDACT_PATHS, '[REDACTED]');
    const error = Object.assign(new Error('boom'), { token: 'secret' });
    const out = redact({ err: error });
    expect(out.err).toBeInstanceOf(Error);
    expect(out.err.message).toBe('boom');
    expect(out.err.stack).toBe(error.stack);
    expect(out.err.stack).toContain('boom');
    expect(out.err.token).toBe('[REDACTED]');
    expect(error.token).toBe('secret');
  });

  it('hands back a line without secrets as it is, and copies only the way to a secret', () => {
    const redact = secretRedactor(REDACT_PATHS, '[REDACTED]');
    const clean = {
      runId: 'r',
      step: 2,
      tokens: { inputTokens: 3, outputTokens: 4 },
      list: [{ token: 'in an array' }],
    };
    expect(redact(clean)).toBe(clean);
    const shared = { big: 'kept as is' };
    const withSecret = { shared, user: { password: 'p' } };
    const out = redact(withSecret);
    expect(out).not.toBe(withSecret);
    expect(out.shared).toBe(shared);
    expect(out.user).toEqual({ password: '[REDACTED]' });
    expect(withSecret.user.password).toBe('p');
  });

  it('says the same as pino’s own redact option for any line, byte for byte', () => {
    const keys = fc.constantFrom(
      'authorization',
      'cookie',
      'headers',
      'req',
      'x-api-key',
      'apiKey',
      'password',
      'token',
      'secret',
      'name',
      'err',
    );
    const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
    const value = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        leaf,
        tie('object'),
        tie('array'),
        tie('error'),
        tie('instance'),
      ),
      object: fc.dictionary(keys, tie('tree'), { maxKeys: 5, noNullPrototype: true }),
      array: fc.array(tie('tree'), { maxLength: 3 }),
      // An Error with extra own fields (what `log.error({ err })` carries), a class instance with a `toJSON`.
      error: fc.tuple(fc.string(), tie('object')).map(([message, extra]) => errorWith(message, extra)),
      instance: fc.tuple(fc.string(), fc.string()).map(([token, shown]) => new Shown(token, shown)),
    })).object;
    const ours = sink();
    const theirs = sink();
    const mine = defaultLogger(ours.stream);
    const reference = pino(
      { name: 'reins-server', redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' } },
      theirs.stream,
    );
    fc.assert(
      fc.property(value, (line) => {
        mine.info(line, 'line');
        reference.info(line, 'line');
        mine.child(line).child({ step: 1 }).info('child');
        reference.child(line).child({ step: 1 }).info('child');
        expect(ours.raw.splice(0).map(stable)).toEqual(theirs.raw.splice(0).map(stable));
      }),
      { numRuns: 400 },
    );
  });

  it('reads the path forms pino takes, and refuses malformed ones', () => {
    expect(pathSegments('headers["x-api-key"]')).toEqual(['headers', 'x-api-key']);
    expect(pathSegments("a['b'].c")).toEqual(['a', 'b', 'c']);
    expect(pathSegments('*.token')).toEqual(['*', 'token']);
    for (const bad of ['', '.a', 'a.', 'a..b', 'a[b]', 'a["b"', 'a["b"]c']) {
      expect(() => pathSegments(bad), bad).toThrow(/malformed/);
    }
  });
});
