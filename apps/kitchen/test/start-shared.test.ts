import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { PG_URL } from './backends.js';

const KITCHEN_BIN = fileURLToPath(new URL('../bin/kitchen.js', import.meta.url));
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** `kitchen start …` in this process with `env`: its exit code and what it printed. */
async function startWith(env: Record<string, string>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['start', ...args], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('kitchen start in the shared mode: settings checked at start', () => {
  const shared = { REINS_MODE: 'shared', DATABASE_URL: PG_URL, REDIS_URL };
  it.each([
    [
      { REINS_MODE: 'shared' },
      [],
      /REINS_MODE=shared needs DATABASE_URL \(a postgres:\/\/ URL\) and REDIS_URL/,
    ],
    [{ ...shared, DATABASE_URL: '' }, [], /needs DATABASE_URL/],
    [{ ...shared, REDIS_URL: 'http://127.0.0.1:6379' }, [], /needs REDIS_URL \(a redis:\/\/ URL\)/],
    [{ REINS_MODE: 'cluster' }, [], /REINS_MODE must be embedded or shared, not "cluster"/],
    [{}, ['--role', 'worker'], /--role worker needs the shared mode: set REINS_MODE=shared/],
    [shared, ['--role', 'boss'], /--role must be api, worker or all, not "boss"/],
    [
      { ...shared, REINS_WORKER_CONCURRENCY: '0' },
      ['--role', 'worker'],
      /REINS_WORKER_CONCURRENCY must be a positive whole number/,
    ],
  ])('%j %j: refused with a message that names the setting (exit 2)', async (env, args, message) => {
    const { code, err } = await startWith(env, ...args);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it('an unknown argument to start is a usage error', async () => {
    const { code, err } = await startWith(shared, '--roles', 'api');
    expect(code).toBe(2);
    expect(err).toContain('start takes only --role api|worker|all');
  });
});

const schemas: string[] = [];
afterAll(async () => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

/**
 * `node kitchen.js start --role <role>` as a process; resolves with its URL once it listens and
 * has printed its start-up lines (up to the nutrition server's: each line is its own write, so
 * the first can arrive alone).
 */
async function startProcess(role: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [KITCHEN_BIN, 'start', '--role', role], {
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const found = /Xiaojia Kitchen on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (found !== undefined && /nutrition server: .*metrics: /.test(out)) {
        clearInterval(timer);
        resolve(found);
      }
    }, 50);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`exited early:\n${out}`));
    });
  });
  return { url, output: () => out, stop: async () => (child.kill('SIGTERM'), await exited) };
}

it('`npm run start:api` + `npm run start:worker`: the assistant answers through the queue', async () => {
  const schema = `start_shared_${process.pid}_${Date.now()}`;
  schemas.push(schema);
  const env = {
    REINS_MODE: 'shared',
    DATABASE_URL: PG_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL,
    REINS_REDIS_PREFIX: `reins-start-${randomUUID().slice(0, 8)}:`,
    KITCHEN_SEED: 'demo', // a test database: the demo households
  };
  const api = await startProcess('api', env); // first: it migrates and seeds
  const worker = await startProcess('worker', env);
  try {
    expect(api.output()).toContain('mode: shared, role api');
    expect(worker.output()).toContain('worker: takes runs from the queue');
    // The worker serves no app.
    expect((await fetch(`${worker.url}/api/fridge`)).status).toBe(404);
    const login = await fetch(`${api.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'xiaojia', password: 'demo-xiaojia' }),
    });
    const { token } = (await login.json()) as { token: string };
    const run = await fetch(`${api.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ agent: 'kitchen', input: '鸡蛋的营养成分是多少？' }),
    });
    const { record } = (await run.json()) as { record: { status: string; final_answer: string } };
    expect(record.status).toBe('success');
    expect(record.final_answer).toMatch(/鸡蛋/);
    const health = (await (await fetch(`${worker.url}/health`)).json()) as {
      checks: Record<string, { status: string; role?: string }>;
    };
    expect(health.checks['queue']).toMatchObject({ status: 'up', role: 'worker' });
  } finally {
    expect(await worker.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  }
}, 90_000);
