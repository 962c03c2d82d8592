import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { planChanged, PreparedStatements } from '../src/db/pglite-prepared.js';
import { openPgliteThread } from '../src/db/pglite-thread.js';
import { pgliteTemplate } from './backends.js';

// Issue 17.1: PGlite's `query` parses, describes and plans a statement at every call; the
// database thread prepares a DML text once and then only binds and runs it. The answers must
// be exactly `query`'s, errors included, and a schema change must never leave a stale plan.

let pg: PGlite;
beforeAll(async () => {
  pg = await PGlite.create();
  await pg.exec(`CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL, qty numeric, tags text[], doc jsonb,
    at timestamptz, day date, big int8)`);
}, 60_000);
afterAll(async () => {
  await pg.close();
});

const session = async (): Promise<string[]> =>
  (await pg.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map(
    (r) => r.name,
  );

describe('PreparedStatements', () => {
  it('answers as query does: every type both ways, NULL parameters, no rows, RETURNING', async () => {
    const prepared = new PreparedStatements(pg);
    const insert =
      'INSERT INTO item (id, name, qty, tags, doc, at, day, big) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *';
    const row = [
      1,
      '鸡蛋 "x"',
      '12.50',
      ['a', 'b,c', '"q"'],
      { k: [1, 'ü'] },
      new Date(Date.UTC(2026, 4, 4, 1, 2, 3)),
    ];
    const inserted = await prepared.run(insert, [...row, '2026-05-04', 9007199254740993n]);
    const viaQuery = await pg.query(insert.replace('RETURNING *', 'RETURNING *'), [
      2,
      ...row.slice(1),
      '2026-05-04',
      9007199254740993n,
    ]);
    expect(inserted).toEqual([{ ...(viaQuery.rows[0] as object), id: 1 }]);
    const select = 'SELECT * FROM item WHERE id = $1 OR name = $2 ORDER BY id';
    for (const params of [
      [1, null],
      [3, 'none'],
      [undefined, '鸡蛋 "x"'],
    ]) {
      expect(await prepared.run(select, params)).toEqual((await pg.query(select, params)).rows);
    }
    expect(await prepared.run('DELETE FROM item WHERE id = $1', [2])).toEqual([]);
    expect(await prepared.run('SELECT count(*)::int AS n FROM item', [])).toEqual([{ n: 1 }]);
  });

  it('prepares a text once: the second call adds no statement to the session', async () => {
    const prepared = new PreparedStatements(pg);
    const before = (await session()).length;
    await prepared.run('SELECT $1::int + 1 AS n', [1]);
    expect(await prepared.run('SELECT $1::int + 1 AS n', [41])).toEqual([{ n: 42 }]);
    expect((await session()).length).toBe(before + 1);
    expect(prepared.size).toBe(1);
  });

  it('an error is PostgreSQL`s, with its code; the session answers the next statement', async () => {
    const prepared = new PreparedStatements(pg);
    await expect(prepared.run('SELECT $1::int AS n', ['not a number'])).rejects.toMatchObject({
      code: '22P02',
    });
    await expect(prepared.run('SELECT nope FROM item', [])).rejects.toMatchObject({ code: '42703' });
    await expect(
      prepared.run('INSERT INTO item (id, name) VALUES ($1, $2)', [1, 'dup']),
    ).rejects.toMatchObject({
      code: '23505',
    });
    expect(await prepared.run('SELECT $1::int AS n', ['7'])).toEqual([{ n: 7 }]);
    expect(prepared.accepts('SELECT nope FROM item')).toBe(true); // a failed prepare is tried again
  });

  it('a 0A000 that is not a changed table keeps its error (and the statement) in and out of a transaction', async () => {
    const prepared = new PreparedStatements(pg);
    const locked = 'SELECT count(*) FROM item WHERE id = $1 FOR UPDATE';
    await expect(
      pg.transaction(() => pg.runExclusive(() => prepared.run(locked, [1], true))),
    ).rejects.toMatchObject({ code: '0A000', query: locked });
    await expect(prepared.run(locked, [1])).rejects.toMatchObject({ code: '0A000' });
    expect(PreparedStatements.mayChangeSchema(locked)).toBe(false);
    expect(PreparedStatements.mayChangeSchema('ALTER TABLE item ADD c int')).toBe(true);
  });

  it('a table changed under a statement inside a transaction: PostgreSQL`s 0A000, not a retry into 25P02; prepared again after', async () => {
    await pg.exec('CREATE TABLE turn (a int, b int); INSERT INTO turn VALUES (1, 2)');
    const prepared = new PreparedStatements(pg);
    const read = 'SELECT b FROM turn WHERE a = $1';
    await expect(
      pg.transaction(async (tx) => {
        expect(await pg.runExclusive(() => prepared.run(read, [1], true))).toEqual([{ b: 2 }]);
        await tx.exec('ALTER TABLE turn ALTER COLUMN b TYPE text');
        return pg.runExclusive(() => prepared.run(read, [1], true));
      }),
    ).rejects.toMatchObject({ code: '0A000' });
    await pg.exec('ALTER TABLE turn ALTER COLUMN b TYPE text');
    expect(await prepared.run(read, [1])).toEqual([{ b: '2' }]);
    expect(planChanged({ code: '0A000', message: 'cached plan must not change result type' })).toBe(true);
    expect(
      planChanged({ code: '0A000', message: 'FOR UPDATE is not allowed with aggregate functions' }),
    ).toBe(false);
  });

  it('takes DML only, and no more than max texts', () => {
    const prepared = new PreparedStatements(pg, 1);
    expect(prepared.accepts('  with x AS (SELECT 1) SELECT * FROM x')).toBe(true);
    for (const sql of [
      'CREATE TABLE x (a int)',
      'SET search_path = x',
      'DROP TABLE item',
      'ALTER TABLE item ADD b int',
    ])
      expect(prepared.accepts(sql), sql).toBe(false);
    return prepared.run('SELECT 1 AS one', []).then(() => {
      expect(prepared.accepts('SELECT 1 AS one')).toBe(true);
      expect(prepared.accepts('SELECT 2 AS two')).toBe(false);
    });
  });

  it('a schema change from outside: the statement is prepared again once and answers with the new columns', async () => {
    await pg.exec('CREATE TABLE shape (a int); INSERT INTO shape VALUES (1)');
    const prepared = new PreparedStatements(pg);
    expect(await prepared.run('SELECT * FROM shape WHERE a = $1', [1])).toEqual([{ a: 1 }]);
    await pg.exec("ALTER TABLE shape ADD COLUMN b text DEFAULT 'new'");
    expect(await prepared.run('SELECT * FROM shape WHERE a = $1', [1])).toEqual([{ a: 1, b: 'new' }]);
  });

  it('forget: every text is prepared again, and the old names are closed in the session', async () => {
    const prepared = new PreparedStatements(pg);
    await prepared.run('SELECT $1::text AS a', ['x']);
    await prepared.run('SELECT $1::text AS b', ['y']);
    const named = await session();
    prepared.forget();
    expect(prepared.size).toBe(0);
    expect(await prepared.run('SELECT $1::text AS a', ['z'])).toEqual([{ a: 'z' }]);
    const after = await session();
    expect(after.length).toBe(named.length - 1); // two closed, one prepared again
  });
});

describe('the database thread prepares its statements', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPgliteThread({ loadDataDir: await pgliteTemplate() });
    await db.exec('CREATE TABLE note (id int PRIMARY KEY, body text NOT NULL)');
  }, 120_000);
  afterAll(async () => {
    await db.close();
  });

  it('a statement run twice is prepared once in the session, and answers both times', async () => {
    const read = 'SELECT $1::int * 2 AS twice';
    expect(await db.query(read, [2])).toEqual([{ twice: 4 }]);
    expect(await db.query(read, [21])).toEqual([{ twice: 42 }]);
    const named = await db.query('SELECT name FROM pg_prepared_statements WHERE statement = $1', [read]);
    expect(named).toHaveLength(1);
  });

  it('a failed statement in a transaction fails the rest of it (25P02) and rolls back; outside, the next one answers', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO note (id, body) VALUES ($1, $2)', [1, 'kept?']);
        await expect(
          tx.query('INSERT INTO note (id, body) VALUES ($1, $2)', [1, 'dup']),
        ).rejects.toMatchObject({
          code: '23505',
        });
        await tx.query('SELECT body FROM note WHERE id = $1', [1]);
      }),
    ).rejects.toMatchObject({ code: '25P02' });
    expect(await db.query('SELECT count(*)::int AS n FROM note', [])).toEqual([{ n: 0 }]);
  });

  it('a statement outside waits for an open transaction, and sees its rows only once it committed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO note (id, body) VALUES ($1, $2)', [2, 'late']);
      await held;
    });
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM note WHERE id = $1', [2]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await tx;
    expect(await outside).toEqual([{ n: 1 }]);
  });

  it('a schema change inside a transaction: its later statements see it; rolled back, the next transaction sees the old one', async () => {
    await db.exec('CREATE TABLE pair (id int PRIMARY KEY, v int)');
    await db.query('INSERT INTO pair (id, v) VALUES ($1, $2)', [1, 7]);
    const read = 'SELECT v FROM pair WHERE id = $1';
    expect(await db.query(read, [1])).toEqual([{ v: 7 }]);
    expect(
      await db.transaction(async (tx) => {
        await tx.exec('ALTER TABLE pair ALTER COLUMN v TYPE text');
        return tx.query(read, [1]);
      }),
    ).toEqual([{ v: '7' }]);
    await db.exec('ALTER TABLE pair ALTER COLUMN v TYPE int USING v::int');
    await expect(
      db.transaction(async (tx) => {
        await tx.exec('ALTER TABLE pair ALTER COLUMN v TYPE varchar(20)');
        expect(await tx.query(read, [1])).toEqual([{ v: '7' }]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await db.transaction((tx) => tx.query(read, [1]))).toEqual([{ v: 7 }]);
    expect(await db.query(read, [1])).toEqual([{ v: 7 }]);
  });

  it('a migration through exec or a DDL statement through query: later statements see the new schema', async () => {
    await db.query('INSERT INTO note (id, body) VALUES ($1, $2)', [3, 'three']);
    const read = 'SELECT * FROM note WHERE id = $1';
    expect(await db.query(read, [3])).toEqual([{ id: 3, body: 'three' }]);
    await db.exec("ALTER TABLE note ADD COLUMN tag text DEFAULT 'a'");
    expect(await db.query(read, [3])).toEqual([{ id: 3, body: 'three', tag: 'a' }]);
    await db.query('ALTER TABLE note DROP COLUMN body');
    expect(await db.query(read, [3])).toEqual([{ id: 3, tag: 'a' }]);
  });
});
