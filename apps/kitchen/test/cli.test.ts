import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { CliIo } from '../src/cli/io.js';
import { startKitchen } from '../src/cli/serve.js';
import { describeConfig, readConfig } from '../src/config.js';
import { PortInUseError, portError } from '../src/cli/port-check.js';
import { BACKENDS, PG_URL } from './backends.js';
import { runKitchen } from './kitchen-process.js';

function capture(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env };
  return { io, out, err, text: () => out.join('\n') };
}

describe('kitchen CLI on the embedded default', () => {
  let dataDir = '';
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kitchen-cli-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const env = () => ({ REINS_DATA_DIR: dataDir, PORT: '0' });

  it('admin: list households, add a user, create a household, add a member, reset a password', async () => {
    const list = capture(env());
    expect(await main(['admin', 'households'], list.io)).toBe(0);
    expect(list.text()).toMatch(/小贾家[\s\S]*owner\s+xiaojia[\s\S]*老王家/);

    const add = capture(env());
    expect(await main(['admin', 'add-user', 'xiaoli', '小李'], add.io)).toBe(0);
    const password = add.out.find((l) => l.startsWith('password: '))?.slice('password: '.length) ?? '';
    expect(password).toHaveLength(20);

    expect(await main(['admin', 'create-household', '小李家', 'xiaoli'], capture(env()).io)).toBe(0);
    expect(
      await main(['admin', 'add-member', '小李家', 'nainai', '--role', 'owner'], capture(env()).io),
    ).toBe(0);
    const reset = capture(env());
    expect(await main(['admin', 'reset-password', 'xiaoli', '--password', 'brand-new-pass'], reset.io)).toBe(
      0,
    );
    expect(reset.text()).not.toContain('brand-new-pass');

    const after = capture(env());
    await main(['admin', 'households'], after.io);
    expect(after.text()).toMatch(/小李家\n\s+owner\s+xiaoli \(小李\)\n\s+owner\s+nainai/);

    const running = await startKitchen(readConfig(env()), capture(env()).io);
    try {
      const login = await fetch(`${running.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'xiaoli', password: 'brand-new-pass' }),
      });
      expect(login.status).toBe(200);
    } finally {
      await running.close();
    }
  }, 180_000); // seven commands, each opening PGlite (the first creates it): ~10 s quiet, over 60 s on a saturated machine

  it('errors: usage errors exit 2, refused operations exit 1 with the code', async () => {
    const unknown = capture(env());
    expect(await main(['admin', 'frobnicate'], unknown.io)).toBe(2);
    const taken = capture(env());
    expect(await main(['admin', 'add-user', 'xiaojia', '又一个'], taken.io)).toBe(1);
    expect(taken.err.join('\n')).toMatch(/CONFLICT \(username\)/);
    const weak = capture(env());
    expect(await main(['admin', 'reset-password', 'mama', '--password', 'short'], weak.io)).toBe(1);
    expect(weak.err.join('\n')).toMatch(/INVALID_PARAMETER \(password\)/);
  }, 60_000);

  it('--help and -h print the usage and exit 0 for every command, before reading the configuration', async () => {
    for (const argv of [
      ['--help'],
      ['-h'],
      ['help'],
      [],
      ['start', '--help'],
      ['serve', '-h'],
      ['ask', '--help'],
      ['mcp', '--help'],
      ['admin', '--help'],
    ]) {
      const out = capture({ ...env(), PORT: 'not-a-port' });
      expect({ argv, code: await main(argv, out.io), err: out.err }).toEqual({ argv, code: 0, err: [] });
      expect(out.text()).toContain('usage: kitchen start');
    }
  });

  it('a busy port is one line and exit 1, before the database opens (no stack trace)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      for (const command of ['start', 'serve']) {
        const { code, output } = await runKitchen([command], { REINS_DATA_DIR: dataDir, PORT: String(port) });
        expect({ command, code }).toEqual({ command, code: 1 });
        expect(output.trim()).toBe(`port ${port} is in use; set PORT`);
      }
    } finally {
      holder.close();
    }
  }, 60_000);

  it('a port taken between the check and the listen gives the same line', () => {
    const taken = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect(portError(taken, 8787)).toEqual(new PortInUseError(8787));
    expect((portError(taken, 8787) as Error).message).toBe('port 8787 is in use; set PORT');
    const other = Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
    expect(portError(other, 80)).toBe(other);
  });

  it('serve prints the URL and the demo logins on PGlite', async () => {
    const out = capture(env());
    const running = await startKitchen(readConfig(env()), out.io);
    try {
      expect(out.text()).toContain(running.url);
      expect(out.text()).toContain('demo-xiaojia');
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await running.close();
    }
  }, 60_000);
});

describe.skipIf(BACKENDS[1]?.skip ?? true)('kitchen serve on PostgreSQL', () => {
  const schema = `kitchen_cli_${randomBytes(6).toString('hex')}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it('never prints demo credentials, even when asked to seed them', async () => {
    const env = { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, PORT: '0', KITCHEN_SEED: 'demo' };
    const out = capture(env);
    const running = await startKitchen(readConfig(env), out.io);
    try {
      expect(out.text()).toContain(running.url);
      expect(out.text()).not.toMatch(/demo-/);
      const health = await fetch(`${running.url}/health`);
      expect(await health.json()).toEqual({ status: 'ok', backend: 'postgres' });
    } finally {
      await running.close();
    }
  }, 60_000);

  it('does not seed by default, and masks the password of the URL it prints', () => {
    const config = readConfig({ DATABASE_URL: 'postgres://kitchen:s3cret@127.0.0.1:5432/k' });
    expect(config.seed).toBe('none');
    expect(describeConfig(config)).toContain('kitchen:***@');
    expect(describeConfig(config)).not.toContain('s3cret');
  });
});
