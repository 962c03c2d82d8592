import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openPgliteDb } from '../src/db/pglite-db.js';
import { PG_URL, pgliteTemplate } from './backends.js';

// `kitchen start` as a real process (the built app, `bin/kitchen.js`), for tests that need the
// server's own event loop and libuv pool: floods, latencies under load.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KITCHEN_BIN = fileURLToPath(new URL('../bin/kitchen.js', import.meta.url));

/** The child runs `dist/`: build it (incremental, a no-op when current) so a stale build cannot hide a bug. */
export function buildKitchen(): void {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b', join(ROOT, 'apps/kitchen/tsconfig.build.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

export interface KitchenProcess {
  readonly url: string;
  readonly pid: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `kitchen start` on a fresh seeded database: PGlite (a data directory from the migrated
 * template) or PostgreSQL (a new schema, dropped by `stop`). Resolves once it listens.
 */
export async function startKitchen(
  backend: 'pglite' | 'postgres',
  env: Record<string, string> = {},
): Promise<KitchenProcess> {
  let storage: Record<string, string>;
  let cleanup: () => Promise<void>;
  if (backend === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'kitchen-proc-'));
    await (await openPgliteDb({ dataDir, loadDataDir: await pgliteTemplate() })).close();
    storage = { REINS_DATA_DIR: dataDir };
    cleanup = () => rm(dataDir, { recursive: true, force: true });
  } else {
    const schema = `kitchen_proc_${randomBytes(6).toString('hex')}`;
    storage = { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, KITCHEN_SEED: 'demo' };
    cleanup = async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    };
  }
  const child = spawn(process.execPath, [KITCHEN_BIN, 'start'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', ...storage, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    await cleanup();
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const found = /Xiaojia Kitchen on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
        if (found !== undefined && out.includes('nutrition server:')) {
          clearInterval(timer);
          resolve(found);
        }
      }, 50);
      void exited.then(() => {
        clearInterval(timer);
        reject(new Error(`kitchen start exited early:\n${out}`));
      });
    });
    return { url, pid: child.pid ?? 0, output: () => out, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
