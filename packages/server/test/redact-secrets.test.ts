import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { defaultLogger, REDACT_PATHS } from '../src/logging.js';
import { pathSegments, secretRedactor } from '../src/redact-secrets.js';

/** A pino destination that keeps each line's parsed object (sync: lines are there once `info` returns). */
function sink(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  return { stream, lines };
}

/** A line without what differs from one logger to another. */
const comparable = ({ time: _time, pid: _pid, hostname: _host, ...rest }: Record<string, unknown>) => rest;

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

  it('says the same as pino’s own redact option for any line', () => {
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
      'step',
    );
    const value = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.boolean(), tie('object')),
      object: fc.dictionary(keys, tie('tree'), { maxKeys: 5, noNullPrototype: true }),
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
        expect(comparable(ours.lines.pop() ?? {})).toEqual(comparable(theirs.lines.pop() ?? {}));
        const a = ours.lines.pop();
        const b = theirs.lines.pop();
        expect(comparable(a ?? {})).toEqual(comparable(b ?? {}));
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
