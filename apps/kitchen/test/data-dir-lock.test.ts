import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir, processStart } from '../src/db/data-dir-lock.js';
import { openPgliteDb } from '../src/db/pglite-db.js';
import { pgliteTemplate } from './backends.js';
import { killKitchens, runKitchen, startKitchenProcess } from './kitchen-process.js';

// Issue 16.13, PGlite: a second process opening the same data directory (`npm run ask` beside
// `npm start`) used to open it too — two engines on one directory. Now it is refused with a
// message naming the directory and the holder; a holder killed with -9 leaves a stale lock the
// next process takes over.

const dirs: string[] = [];
const tempDir = async (name: string): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), `kitchen-lock-${name}-`));
  dirs.push(dir);
  return dir;
};
afterEach(() => killKitchens());
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const holderOf = async (dir: string) =>
  JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as {
    pid: number;
    start: string | null;
    command: string;
  };

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 999_999;
}

describe('lockDataDir', () => {
  it('one holder at a time: a second open (here: this process again) is refused, naming the holder', async () => {
    const dir = await tempDir('twice');
    const lock = await lockDataDir(dir, { command: 'kitchen.js start' });
    expect(await holderOf(dir)).toMatchObject({ pid: process.pid, command: 'kitchen.js start' });
    const refused = await lockDataDir(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^the data directory ${dir} is in use by process ${process.pid} \\(kitchen\\.js start, since .+\\): stop that process first, or set REINS_DATA_DIR to another directory$`,
      ),
    );
    await lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    await (await lockDataDir(dir)).release(); // free again
  });

  it('a live process elsewhere holds it: refused', async () => {
    const dir = await tempDir('live');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      const pid = sleeper.pid ?? 0;
      await writeFile(
        join(dir, LOCK_FILE),
        JSON.stringify({ pid, start: processStart(pid) ?? null, command: 'kitchen.js start', since: 'now' }),
      );
      await expect(lockDataDir(dir)).rejects.toThrow(`is in use by process ${pid} (kitchen.js start`);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('stale locks are taken over: a dead pid, a reused pid (another start time), an unreadable file', async () => {
    const dir = await tempDir('stale');
    const file = join(dir, LOCK_FILE);
    const stale = async (content: string): Promise<void> => {
      await writeFile(file, content);
      const lock = await lockDataDir(dir);
      expect((await holderOf(dir)).pid).toBe(process.pid);
      await lock.release();
    };
    await stale(
      JSON.stringify({ pid: await deadPid(), start: null, command: 'kitchen.js start', since: 'then' }),
    );
    if (processStart(process.ppid) !== undefined)
      await stale(JSON.stringify({ pid: process.ppid, start: 'not-its-start', command: 'x', since: 'then' }));
    await stale('{"pid": "half a');
  });

  it('release removes only its own lock', async () => {
    const dir = await tempDir('own');
    const lock = await lockDataDir(dir);
    const other = JSON.stringify({ pid: 1, start: null, command: 'someone else', since: 'now' });
    await writeFile(join(dir, LOCK_FILE), other); // taken over meanwhile (it judged ours stale)
    await lock.release();
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(other);
  });

  it('openPgliteDb holds the lock until close', async () => {
    const dir = await tempDir('pglite');
    const db = await openPgliteDb({ dataDir: dir, loadDataDir: await pgliteTemplate() });
    await expect(openPgliteDb({ dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);
    await db.close();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    await (await openPgliteDb({ dataDir: dir })).close();
  }, 60_000);
});

describe('two processes on one data directory', () => {
  it('`kitchen ask` beside `kitchen start` is refused (exit 2, one line); after kill -9 the next one starts', async () => {
    const dataDir = await tempDir('processes');
    await (await openPgliteDb({ dataDir, loadDataDir: await pgliteTemplate() })).close();
    const env = { REINS_DATA_DIR: dataDir };
    const first = await startKitchenProcess(env);
    expect(await holderOf(dataDir)).toMatchObject({ pid: first.pid, command: 'kitchen.js start' });

    const ask = await runKitchen(['ask', '--user', 'xiaojia', '冰箱里有什么？'], env);
    expect(ask.code).toBe(2);
    expect(ask.output).toContain(
      `data directory in use: the data directory ${dataDir} is in use by process ${first.pid} (kitchen.js start, since `,
    );
    expect(ask.output).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect((await fetch(`${first.url}/health`)).status).toBe(200); // the holder is untouched

    await first.stop('SIGKILL'); // no chance to remove its lock
    expect((await holderOf(dataDir)).pid).toBe(first.pid);
    const second = await startKitchenProcess(env);
    expect((await holderOf(dataDir)).pid).toBe(second.pid);
    expect((await fetch(`${second.url}/health`)).status).toBe(200);
    expect(await second.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false); // a clean stop frees it
  }, 90_000);
});
