import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { openPgDb } from '../src/db/pg-db.js';
import { StatementNames } from '../src/db/statement-names.js';
import { BACKENDS, PG_URL } from './backends.js';
import { dropSchemas, freshSchema } from './child-server.js';

// Issue 17.1: PostgreSQL parsed and planned every statement at every call (pg's statements are
// unnamed by default). The kitchen pool names each distinct text, so a connection prepares it
// once and then only binds and runs it.

describe('StatementNames', () => {
  it('gives a text the same name every time, and another text another name', () => {
    const names = new StatementNames();
    const a = names.nameOf('SELECT $1::int');
    expect(a).toBe(names.nameOf('SELECT $1::int'));
    expect(names.nameOf('SELECT $1::text')).not.toBe(a);
    expect(names.size).toBe(2);
  });

  it('names no more than max texts: later ones run unnamed, the named keep their names', () => {
    const names = new StatementNames(2);
    const first = names.nameOf('SELECT 1');
    const second = names.nameOf('SELECT 2');
    expect(names.nameOf('SELECT 3')).toBeUndefined();
    expect([names.nameOf('SELECT 1'), names.nameOf('SELECT 2')]).toEqual([first, second]);
    expect(new StatementNames(0).nameOf('SELECT 1')).toBeUndefined();
  });

  it('refuses a max that is not a whole number ≥ 0', () => {
    expect(() => new StatementNames(-1)).toThrow(RangeError);
    expect(() => new StatementNames(1.5)).toThrow(RangeError);
  });
});

describe.skipIf(BACKENDS[1]?.skip ?? true)('the kitchen pool prepares its statements', () => {
  const opened: Db[] = [];
  let schema: string;
  beforeAll(async () => {
    schema = await freshSchema('kitchen_prepared');
  });
  afterAll(async () => {
    for (const db of opened) await db.close();
    await dropSchemas();
  });

  // One connection: every statement below sees the same session's prepared statements.
  const open = async (preparedStatements?: number): Promise<Db> => {
    const db = await openPgDb({
      connectionString: PG_URL,
      schema,
      maxConnections: 1,
      ...(preparedStatements === undefined ? {} : { preparedStatements }),
    });
    opened.push(db);
    return db;
  };
  const LIST = 'SELECT statement FROM pg_prepared_statements WHERE statement NOT LIKE $1 ORDER BY statement';
  const prepared = async (db: Db): Promise<string[]> =>
    (await db.query<{ statement: string }>(LIST, ['%pg_prepared_statements%'])).map((r) => r.statement);

  it('a statement run twice, in and out of a transaction, is prepared once on the connection and answers each time', async () => {
    const db = await open();
    const sum = 'SELECT $1::int + $2::int AS sum';
    expect(await db.query(sum, [1, 2])).toEqual([{ sum: 3 }]);
    expect(await db.query(sum, [40, 2])).toEqual([{ sum: 42 }]);
    expect(await db.transaction((tx) => tx.query(sum, [5, 5]))).toEqual([{ sum: 10 }]);
    expect(await prepared(db)).toEqual([sum]);
  });

  it('past the limit a text runs unnamed (answered, not prepared); 0 prepares none', async () => {
    const db = await open(2);
    expect(await db.query('SELECT $1::text AS a', ['x'])).toEqual([{ a: 'x' }]);
    expect(await db.query('SELECT $1::text AS b', ['y'])).toEqual([{ b: 'y' }]);
    expect(await db.query('SELECT $1::text AS c', ['z'])).toEqual([{ c: 'z' }]);
    expect(await db.query('SELECT $1::text AS c', ['w'])).toEqual([{ c: 'w' }]);
    // The third text and the listing itself came past the limit of two.
    expect(await prepared(db)).toEqual(['SELECT $1::text AS a', 'SELECT $1::text AS b']);

    const none = await open(0);
    expect(await none.query('SELECT $1::int AS n', [7])).toEqual([{ n: 7 }]);
    expect(await prepared(none)).toEqual([]);
  });

  it('a statement that fails to parse fails each time with its error, and the connection goes on', async () => {
    const db = await open();
    const broken = 'SELEC $1::int';
    await expect(db.query(broken, [1])).rejects.toMatchObject({ code: '42601' });
    await expect(db.query(broken, [1])).rejects.toMatchObject({ code: '42601' });
    expect(await db.query('SELECT $1::int AS ok', [1])).toEqual([{ ok: 1 }]);
  });
  it('a parameter the driver cannot send fails its transaction; later transactions of the text still answer', async () => {
    const db = await open();
    const read = 'SELECT $1::jsonb AS doc';
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    await expect(db.transaction((tx) => tx.query(read, [circular]))).rejects.toThrow();
    for (const a of [1, 2])
      expect(await db.transaction((tx) => tx.query(read, [{ a }]))).toEqual([{ doc: { a } }]);
  });

  it('a column whose type changed under a prepared statement fails at most one transaction, not every one', async () => {
    const db = await open();
    await db.exec('CREATE TABLE shape (a int, b int); INSERT INTO shape VALUES (1, 2)');
    const read = 'SELECT b FROM shape WHERE a = $1';
    expect(await db.transaction((tx) => tx.query(read, [1]))).toEqual([{ b: 2 }]);
    await db.exec('ALTER TABLE shape ALTER COLUMN b TYPE text');
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map(() => db.transaction((tx) => tx.query(read, [1]))),
    ).then((all) => all);
    const failed = outcomes.filter((o) => o.status === 'rejected');
    expect(failed.length).toBeLessThanOrEqual(1);
    expect(outcomes.at(-1)).toEqual({ status: 'fulfilled', value: [{ b: '2' }] });
  });
});
