import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from 'reins';
import { main } from '../src/cli/main.js';
import type { Db } from '../src/db/db.js';
import { openPgDb } from '../src/db/pg-db.js';
import { BACKENDS, PG_URL } from './backends.js';
import { dropSchemas, freshSchema } from './child-server.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

// Issue 16.13, the driver level: the kitchen's pg pool through a TCP proxy that refuses or
// black-holes PostgreSQL. Every failure is a `DependencyUnavailableError` within 2 s, and the
// same pool works again once the database is back (no reopen). The real-process version, over
// HTTP, is db-outage.test.ts.

const DEADLINE_MS = 2_000;

async function failure(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('expected the call to fail');
}

function expectUnavailable({ error, ms }: { error: unknown; ms: number }, reason: RegExp): void {
  expect(error).toBeInstanceOf(DependencyUnavailableError);
  const unavailable = error as DependencyUnavailableError;
  expect(unavailable.code).toBe('SERVICE_UNAVAILABLE');
  expect(unavailable.dependency).toBe('database');
  expect(unavailable.retryAfterS).toBe(2);
  expect(unavailable.message).toMatch(/^the database is unavailable \(/);
  expect(unavailable.message).toMatch(reason);
  expect(ms).toBeLessThan(DEADLINE_MS);
}

describe.skipIf(BACKENDS[1]?.skip ?? true)(
  'the kitchen pool when PostgreSQL is refused or black-holed',
  () => {
    let proxy: FaultProxy;
    let db: Db;
    beforeAll(async () => {
      const target = new URL(PG_URL);
      proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
      target.host = `127.0.0.1:${proxy.port}`;
      db = await openPgDb({
        connectionString: target.toString(),
        schema: await freshSchema('kitchen_pool_outage'),
      });
      await db.exec('CREATE TABLE IF NOT EXISTS t (id int PRIMARY KEY)');
    });
    afterEach(async () => {
      await proxy?.set('pass'); // a failed case leaves the next one a working database
    });
    afterAll(async () => {
      await proxy?.set('pass');
      await db?.close();
      await proxy?.close();
      await dropSchemas();
    });

    const warm = async (): Promise<void> => {
      // Several idle connections in the pool: the outage meets them, not only new ones.
      await Promise.all([1, 2, 3].map((i) => db.query('SELECT pg_sleep(0.05), $1::int AS i', [i])));
    };

    it('refused: queries and transactions fail at once as unavailable; back up, the same pool answers', async () => {
      await warm();
      await proxy.set('refuse');
      expectUnavailable(await failure(() => db.query('SELECT 1')), /connection (refused|lost|reset|broken)/);
      expectUnavailable(await failure(() => db.query('SELECT 1')), /connection refused/);
      expectUnavailable(
        await failure(() => db.transaction((tx) => tx.query('INSERT INTO t VALUES (1)'))),
        /connection refused/,
      );
      await proxy.set('pass');
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect(await db.transaction((tx) => tx.query('INSERT INTO t VALUES (2) RETURNING id'))).toEqual([
        { id: 2 },
      ]);
    });

    it('black-holed: a query on a held connection and a new connection both give up within 2 s', async () => {
      await warm();
      await proxy.set('blackhole');
      // A held (idle) connection: the query is sent and never answered → the query deadline.
      expectUnavailable(await failure(() => db.query('SELECT 1')), /no answer within the query timeout/);
      // A transaction: BEGIN hangs; the connection is dropped, not rolled back (a ROLLBACK on a dead
      // link would spend a second deadline).
      expectUnavailable(
        await failure(() => db.transaction((tx) => tx.query('INSERT INTO t VALUES (3)'))),
        /no answer within the query timeout|connect timeout/,
      );
      // Many at once: every held connection times out, the rest wait for new ones that never connect.
      const many = await Promise.all(Array.from({ length: 12 }, () => failure(() => db.query('SELECT 1'))));
      for (const one of many) expectUnavailable(one, /timeout/);
      await proxy.set('pass');
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect(await db.transaction((tx) => tx.query('INSERT INTO t VALUES (4) RETURNING id'))).toEqual([
        { id: 4 },
      ]);
    }, 30_000);

    it('a wrong statement is still a plain error (a bug is a 500, not an outage)', async () => {
      const wrong = await failure(() => db.query('SELEC 1'));
      expect(wrong.error).not.toBeInstanceOf(DependencyUnavailableError);
      expect((wrong.error as { code?: string }).code).toBe('42601');
      const duplicate = await failure(() => db.query('INSERT INTO t VALUES (2)'));
      expect(duplicate.error).not.toBeInstanceOf(DependencyUnavailableError);
    });

    it('a statement the live server takes too long for is cancelled by the server (57014) → unavailable', async () => {
      expectUnavailable(await failure(() => db.query('SELECT pg_sleep(5)')), /the statement timed out/);
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]); // the connection is fine
    });

    it('`kitchen start` with the database refused: one line with the code, exit 1, no stack trace', async () => {
      await proxy.set('refuse');
      const err: string[] = [];
      const url = new URL(PG_URL);
      url.host = `127.0.0.1:${proxy.port}`;
      const io = {
        out: () => undefined,
        err: (line: string) => err.push(line),
        env: { DATABASE_URL: url.toString(), PORT: '0' },
      };
      expect(await main(['start'], io)).toBe(1);
      expect(err).toEqual([
        'error SERVICE_UNAVAILABLE: the database is unavailable (connection refused); try again shortly',
      ]);
      await proxy.set('pass');
    });

    it('migrations (`exec`) are not held to the query deadline', async () => {
      await db.exec('SELECT pg_sleep(1.7)'); // longer than the 1.5 s query timeout
    });
  },
);
