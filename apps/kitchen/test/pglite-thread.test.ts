import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError } from '../src/db/data-dir-lock.js';
import type { Db } from '../src/db/db.js';
import { openPgliteDb } from '../src/db/pglite-db.js';
import { IDLE_IN_TRANSACTION } from '../src/db/pglite-protocol.js';
import { openPgliteThread } from '../src/db/pglite-thread.js';
import { pgliteTemplate } from './backends.js';

// Issue 17.1: the embedded database runs in a worker thread. It must behave as PGlite in this
// thread does (values, errors, transactions), never wedge on a caller that goes quiet, and keep
// this thread's event loop free while it works.

let thread: Db;
let inThread: Db;
const dirs: string[] = [];
beforeAll(async () => {
  const template = await pgliteTemplate();
  [thread, inThread] = await Promise.all([
    openPgliteThread({ loadDataDir: template }),
    openPgliteDb({ loadDataDir: template }),
  ]);
  for (const db of [thread, inThread])
    await db.exec(
      'CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL); CREATE TABLE counter (n int NOT NULL)',
    );
}, 120_000);
afterAll(async () => {
  await Promise.all([thread.close(), inThread.close()]);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const failureOf = (promise: Promise<unknown>): Promise<Record<string, unknown>> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Record<string, unknown>,
  );

describe('values and errors, as PGlite in this thread has them', () => {
  it('rows: timestamptz, date, bytea, int8 (safe and not), numeric, jsonb, arrays, NULL; parameters alike', async () => {
    const sql = `SELECT $1::timestamptz AS at, '2026-05-04'::date AS day, $2::bytea AS bytes,
        $3::bytea AS buffer, 42::int8 AS small, $4::int8 AS big, 12.50::numeric AS price,
        $5::jsonb AS doc, ARRAY['鸡蛋', '番茄'] AS foods, ARRAY[1, 2]::int[] AS ints, NULL::text AS nothing,
        'O''Brien — 豆腐\u00e9' AS text`;
    const params = [
      new Date('2026-05-04T01:02:03.456Z'),
      new Uint8Array([0, 1, 254, 255]),
      Buffer.from('食', 'utf8'),
      9_007_199_254_740_993n,
      { a: [1, 'x'], nested: { ok: true } },
    ];
    const [got] = await thread.query(sql, params);
    const [expected] = await inThread.query(sql, params);
    expect(got).toEqual(expected);
    expect(got).toMatchObject({
      at: new Date('2026-05-04T01:02:03.456Z'),
      bytes: new Uint8Array([0, 1, 254, 255]),
      big: 9_007_199_254_740_993n,
      small: 42,
      doc: { a: [1, 'x'], nested: { ok: true } },
    });
    expect(got?.['at']).toBeInstanceOf(Date);
    expect(got?.['bytes']).toBeInstanceOf(Uint8Array);
  });

  it('a unique violation keeps code 23505, its detail and constraint; a syntax error 42601', async () => {
    for (const db of [thread, inThread]) await db.query(`INSERT INTO t VALUES (1, 'one')`);
    const insert = (db: Db) => failureOf(db.query('INSERT INTO t VALUES ($1, $2)', [1, 'again']));
    const [got, expected] = [await insert(thread), await insert(inThread)];
    expect(got).toBeInstanceOf(Error);
    expect(got).toMatchObject({
      code: '23505',
      constraint: 't_pkey',
      detail: 'Key (id)=(1) already exists.',
      message: 'duplicate key value violates unique constraint "t_pkey"',
    });
    for (const field of ['code', 'message', 'detail', 'constraint', 'table', 'severity'])
      expect(got[field], field).toEqual(expected[field]);
    expect(String(got['stack'])).toContain('pglite-thread.test.ts'); // where the caller sent it
    expect(await failureOf(thread.query('SELEKT 1'))).toMatchObject({ code: '42601' });
  });

  it('a parameter structured clone cannot carry is refused with a TypeError, and the database goes on', async () => {
    const refused = await failureOf(thread.query('SELECT $1::text AS x', [() => 1]));
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused['message']).toMatch(/cannot be sent to the database thread/);
    expect(await thread.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

describe('transactions', () => {
  it('a callback that throws: rolled back, and the caller gets its own error', async () => {
    const boom = new Error('boom');
    await expect(
      thread.transaction(async (tx) => {
        await tx.query(`INSERT INTO t VALUES (10, 'ten')`);
        expect(await tx.query('SELECT v FROM t WHERE id = 10')).toEqual([{ v: 'ten' }]);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await thread.query('SELECT * FROM t WHERE id = 10')).toEqual([]);
    // And committed when it resolves, with its value.
    await expect(
      thread.transaction(async (tx) => {
        await tx.query(`INSERT INTO t VALUES (11, 'eleven')`);
        return 'kept';
      }),
    ).resolves.toBe('kept');
    expect(await thread.query('SELECT v FROM t WHERE id = 11')).toEqual([{ v: 'eleven' }]);
  });

  it('a failed statement the callback swallowed: COMMIT refuses (25P02), as in this thread', async () => {
    const swallow = (db: Db) =>
      failureOf(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO t VALUES (20, 'twenty')`);
          await tx.query(`INSERT INTO t VALUES (20, 'twice')`).catch(() => undefined);
        }),
      );
    expect(await swallow(thread)).toMatchObject({ code: '25P02' });
    expect(await swallow(inThread)).toMatchObject({ code: '25P02' });
    expect(await thread.query('SELECT * FROM t WHERE id = 20')).toEqual([]);
  });

  it('concurrent transactions run one at a time; a statement outside waits for the open one', async () => {
    await thread.query('INSERT INTO counter VALUES (0)');
    const log: string[] = [];
    let began = (): void => undefined;
    const aBegan = new Promise<void>((resolve) => (began = resolve));
    // Read, pause (the caller doing other work), write: interleaved, updates would be lost.
    const increment = (name: string) =>
      thread.transaction(async (tx) => {
        log.push(`${name} begin`);
        began();
        const [row] = await tx.query<{ n: number }>('SELECT n FROM counter');
        await pause(30);
        await tx.query('UPDATE counter SET n = $1', [(row?.n ?? 0) + 1]);
        log.push(`${name} end`);
      });
    const a = increment('a');
    await aBegan;
    // Sent while `a` is open, before `b` and `c` ask: it waits for `a` only, and they for it.
    const outside = thread.query<{ n: number }>('SELECT n FROM counter').then((rows) => {
      log.push(`outside saw ${rows[0]?.n}`);
    });
    await Promise.all([a, outside, increment('b'), increment('c')]);
    expect(await thread.query('SELECT n FROM counter')).toEqual([{ n: 3 }]);
    // The outside statement ran after `a` and before `b`: it saw 1. (It may hear so after `b`
    // began: a transaction's answers are handed out at once, others paced.)
    expect(log.filter((line) => !line.startsWith('outside'))).toEqual([
      'a begin',
      'a end',
      'b begin',
      'b end',
      'c begin',
      'c end',
    ]);
    expect(log).toContain('outside saw 1');
    expect(log.indexOf('outside saw 1')).toBeGreaterThan(log.indexOf('a end'));
  });

  it('a caller that goes quiet in a transaction is rolled back after the idle timeout; the rest goes on', async () => {
    const db = await openPgliteThread({ loadDataDir: await pgliteTemplate(), transactionIdleTimeoutMs: 300 });
    try {
      await db.exec('CREATE TABLE t (id int PRIMARY KEY)');
      let wake = (): void => undefined;
      const quiet = new Promise<void>((resolve) => (wake = resolve));
      const stuck = failureOf(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO t VALUES (1)');
          await quiet; // e.g. waiting on something that never answers
          await tx.query('INSERT INTO t VALUES (2)');
        }),
      );
      await pause(20);
      // Behind the open transaction, until the thread gives up on it (here 300 ms, not forever).
      const t0 = performance.now();
      expect(await db.query('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 0 }]);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(200);
      wake();
      const error = await stuck;
      expect(error).toMatchObject({ code: IDLE_IN_TRANSACTION });
      expect(error['message']).toMatch(/waited 300 ms for its next statement and was rolled back/);
      expect(await db.query('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 0 }]);
      // A caller that throws after its transaction expired gets its own error, not the timeout.
      const own = new Error('own');
      await expect(
        db.transaction(async () => {
          await pause(500);
          throw own;
        }),
      ).rejects.toBe(own);
      await db.transaction((tx) => tx.query('INSERT INTO t VALUES (3)'));
      expect(await db.query('SELECT id FROM t')).toEqual([{ id: 3 }]);
    } finally {
      await db.close();
    }
  });
});

describe('the probe (what /health asks)', () => {
  it('answers between statements, not behind them; idle, it runs a SELECT 1', async () => {
    expect(await thread.probe?.()).toMatchObject({ waiting: 0 });
    // ~300 statements of a few ms each: a SELECT 1 sent now waits for all of them.
    const backlog = Array.from({ length: 300 }, () =>
      thread.query(`SELECT count(*) FROM generate_series(1, 3000) g WHERE md5(g::text) LIKE 'a%'`),
    );
    const t0 = performance.now();
    const behind = thread.query('SELECT 1').then(() => performance.now() - t0);
    const probed = await thread.probe?.();
    const probeMs = performance.now() - t0;
    await Promise.all(backlog);
    const behindMs = await behind;
    expect(probed?.waiting).toBeGreaterThan(100);
    expect(probeMs).toBeLessThan(behindMs / 4);
  }, 60_000);
});

describe('the thread and its data directory', () => {
  it('holds the directory lock until closed; what it wrote is there after a reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kitchen-thread-'));
    dirs.push(dir);
    const first = await openPgliteThread({ dataDir: dir, loadDataDir: await pgliteTemplate() });
    await expect(openPgliteDb({ dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(openPgliteThread({ dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);
    await first.exec(`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('豆腐')`);
    // Queued before close: answered; after: refused as PGlite refuses once closed.
    const queued = first.query('SELECT v FROM kept');
    const closed = first.close();
    expect(await queued).toEqual([{ v: '豆腐' }]);
    await closed;
    await expect(first.query('SELECT 1')).rejects.toThrow('PGlite is closed');
    const second = await openPgliteThread({ dataDir: dir });
    try {
      expect(await second.query('SELECT v FROM kept')).toEqual([{ v: '豆腐' }]);
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe('the thread and the process', () => {
  it('a statement under way keeps the process alive; an idle database does not (built app, child process)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kitchen-thread-exit-'));
    dirs.push(dir);
    const template = join(dir, 'template.tar');
    await writeFile(template, Buffer.from(await (await pgliteTemplate()).arrayBuffer()));
    const built = fileURLToPath(new URL('../dist/db/pglite-thread.js', import.meta.url));
    // Not closed on purpose: a CLI that forgets to close must still exit once its work is done.
    const script = `
      import { readFileSync } from 'node:fs';
      const { openPgliteThread } = await import(${JSON.stringify(built)});
      const db = await openPgliteThread({ loadDataDir: new Blob([readFileSync(${JSON.stringify(template)})]) });
      const [row] = await db.query("SELECT count(*)::int AS n FROM generate_series(1, 200000) g WHERE md5(g::text) LIKE 'a%'");
      console.log('answered', row.n > 0);`;
    await writeFile(join(dir, 'forgets-to-close.mjs'), script);
    const child = spawn(process.execPath, [join(dir, 'forgets-to-close.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    const code = await new Promise((resolve) => child.once('exit', (c, signal) => resolve(c ?? signal)));
    clearTimeout(killer);
    expect(out.trim()).toBe('answered true');
    expect(code).toBe(0);
  }, 60_000);
});

describe('the event loop stays free', () => {
  /** Timer ticks (every 5 ms) and the longest gap between them while `work` runs. */
  async function loopDuring(work: () => Promise<unknown>) {
    let last = performance.now();
    let longest = 0;
    let ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      ticks++;
    }, 5);
    const t0 = performance.now();
    await work();
    const ms = performance.now() - t0;
    clearInterval(timer);
    return { ms, ticks, longest: Math.max(longest, performance.now() - last) };
  }
  // About a second of CPU in PGlite, in one statement.
  const heavy = (db: Db) =>
    db.query(`SELECT count(*) FROM generate_series(1, 800000) g WHERE md5(g::text) LIKE 'a%'`);

  it('a heavy statement blocks this thread with PGlite here, not with PGlite in its thread', async () => {
    await Promise.all([heavy(thread), heavy(inThread)]); // warm both
    const here = await loopDuring(() => heavy(inThread));
    const there = await loopDuring(() => heavy(thread));
    // In this thread: no timer runs while the statement does (generous: half of its time).
    expect(here.longest).toBeGreaterThanOrEqual(here.ms * 0.5);
    // In its thread: the timers go on (generous margins: the machine is shared).
    expect(there.longest).toBeLessThan(there.ms * 0.25);
    expect(there.longest).toBeLessThan(here.longest / 2);
    expect(there.ticks).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('a burst of answers reaches its callers paced by turns of the loop, not as one long block', async () => {
    // 1 500 statements at once, each caller then busy for 1 ms (a model step, encoding events):
    // the thread answers far faster than they finish, so answers pile up and come in bursts.
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const loop = await loopDuring(() =>
      Promise.all(
        Array.from({ length: 1_500 }, async (_, i) => {
          await thread.query('SELECT $1::int AS i', [i]);
          busy(1);
        }),
      ),
    );
    expect(loop.ms).toBeGreaterThanOrEqual(1_500); // the callers' own work, at least
    // Delivered all at once, a burst would hold the loop for up to 1 000 × 1 ms.
    expect(loop.longest).toBeLessThan(250);
  }, 60_000);
});
