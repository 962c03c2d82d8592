import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlMemoryStore, type PgQueryable } from '@reins/stores';
import { memoryStoreContract } from '../../reins/test/contract/memory-store-contract.js';

// The machine's PostgreSQL (CI has it too: a missing service fails, never skips); a schema of
// our own per run, dropped afterwards. pg_trgm goes to `public`, shared by every schema.
const pool = new pg.Pool({
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: 'test',
  connectionTimeoutMillis: 3_000,
  statement_timeout: 10_000,
});
const schema = `reins_memories_test_${process.pid}_${Date.now()}`;

/** PGlite in memory, with the pg_trgm contrib extension loaded (it must be, at create). */
let lite: PGlite | undefined;
const pglite = (): PgQueryable => {
  if (lite === undefined) throw new Error('PGlite not ready');
  return lite as unknown as PgQueryable; // PGlite's query(text, values) → {rows} is the same shape
};

beforeAll(async () => {
  await pool.query(`CREATE SCHEMA ${schema}`);
  lite = await PGlite.create({ extensions: { pg_trgm } });
}, 30_000);
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
  await lite?.close();
});

memoryStoreContract('sqlMemoryStore [postgres]', (options = {}) =>
  sqlMemoryStore(pool, { table: `${schema}.memories`, ...options }),
);
memoryStoreContract('sqlMemoryStore [pglite]', (options = {}) =>
  sqlMemoryStore(pglite(), { table: 'memories', ...options }),
);

describe('sqlMemoryStore (SQL specifics)', () => {
  it('stores the segmented words, a tsvector with GIN and trigram indexes, and the vector beside the text', async () => {
    const store = await sqlMemoryStore(pool, {
      table: `${schema}.vectors`,
      embedder: { name: 'fixed', embed: async (texts) => texts.map(() => [0.5, 0.25]) },
    });
    await store.remember('household:a', '小宝对花生过敏');
    const { rows } = await pool.query(`SELECT segmented, words::text, embedding FROM ${schema}.vectors`);
    expect(rows[0]).toMatchObject({ segmented: '小 宝 花生 过敏', embedding: [0.5, 0.25] });
    expect(rows[0]?.words).toContain("'花生'");
    const indexes = await pool.query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'vectors'`,
      [schema],
    );
    const defs = indexes.rows.map((r) => String(r.indexdef)).join('\n');
    expect(defs).toMatch(/USING gin \(words\)/);
    expect(defs).toMatch(/USING gin \(segmented (?:public\.)?gin_trgm_ops\)/);
  });

  it('a second instance over the same table recalls what the first remembered', async () => {
    const one = await sqlMemoryStore(pool, { table: `${schema}.shared` });
    const two = await sqlMemoryStore(pool, { table: `${schema}.shared` });
    await one.remember('household:a', '婆婆不吃辣');
    expect((await two.recall('household:a', '婆婆能吃辣吗'))[0]?.text).toBe('婆婆不吃辣');
  });

  it('refuses a table name that is not a plain identifier; values are always parameters', async () => {
    await expect(sqlMemoryStore(pool, { table: 'm; DROP TABLE x' })).rejects.toThrow(/plain identifier/);
    const store = await sqlMemoryStore(pool, { table: `${schema}.quotes` });
    const text = "婆婆'); DROP TABLE quotes; -- 不吃辣";
    await store.remember('household:a', text);
    expect((await store.list('household:a'))[0]?.text).toBe(text);
    expect((await store.recall('household:a', "'); DROP 辣"))[0]?.text).toBe(text);
  });
});

describe('sqlMemoryStore.recallIf: an access condition decided by the statement that recalls', () => {
  const backends: [string, () => PgQueryable, string][] = [
    ['postgres', () => pool, `${schema}.guarded`],
    ['pglite', pglite, 'guarded'],
  ];
  /** The database, counting the statements sent to it. */
  const counted = (db: PgQueryable) => {
    const texts: string[] = [];
    const queryable: PgQueryable = {
      query: (text, values) => {
        texts.push(text);
        return db.query(text, values);
      },
    };
    return { queryable, texts };
  };
  const guardTable = (table: string) => table.replace(/guarded$/, 'guard_members');

  for (const [name, db, table] of backends) {
    it(`[${name}] gives what recall gives when the guard holds, undefined when it does not — one statement each`, async () => {
      await db().query(`CREATE TABLE IF NOT EXISTS ${guardTable(table)} (household text, member text)`);
      await db().query(`INSERT INTO ${guardTable(table)} VALUES ('a', 'u1')`);
      const { queryable, texts } = counted(db());
      const store = await sqlMemoryStore(queryable, { table });
      for (const text of ['婆婆不吃辣', '小宝对花生过敏', '爷爷爱吃鱼', '婆婆爱喝汤'])
        await store.remember('household:a', text);
      const guard = (member: string) => ({
        sql: `EXISTS (SELECT 1 FROM ${guardTable(table)} WHERE household = $1 AND member = $2)`,
        params: ['a', member],
      });
      texts.length = 0;
      const plain = await store.recall('household:a', '婆婆吃辣吗', { limit: 3 });
      const allowed = await store.recallIf(guard('u1'), 'household:a', '婆婆吃辣吗', { limit: 3 });
      const refused = await store.recallIf(guard('u2'), 'household:a', '婆婆吃辣吗', { limit: 3 });
      expect(plain.map((m) => m.text)).toEqual(['婆婆不吃辣', '婆婆爱喝汤', '爷爷爱吃鱼']);
      expect(allowed).toEqual(plain);
      expect(refused).toBeUndefined();
      expect(texts).toHaveLength(3);
      // Nothing matches: the member gets [], the outsider still undefined.
      expect(await store.recallIf(guard('u1'), 'household:a', '电脑', {})).toEqual([]);
      expect(await store.recallIf(guard('u2'), 'household:a', '电脑', {})).toBeUndefined();
      // A query with no term at all still runs the guard (recall itself sends nothing then).
      texts.length = 0;
      expect(await store.recall('household:a', '？！')).toEqual([]);
      expect(texts).toHaveLength(0);
      expect(await store.recallIf(guard('u1'), 'household:a', '？！')).toEqual([]);
      expect(await store.recallIf(guard('u2'), 'household:a', '？！')).toBeUndefined();
      expect(texts).toHaveLength(2);
    });
  }

  it('with an embedder, the query is embedded only for a caller the guard lets in', async () => {
    await pool.query(`CREATE TABLE IF NOT EXISTS ${schema}.embed_members (member text)`);
    await pool.query(`INSERT INTO ${schema}.embed_members VALUES ('u1')`);
    const embedded: string[] = [];
    const store = await sqlMemoryStore(pool, {
      table: `${schema}.guarded_embed`,
      embedder: {
        name: 'counting',
        embed: async (texts) => {
          embedded.push(...texts);
          return texts.map(() => [0.5, 0.25]);
        },
      },
    });
    await store.remember('household:a', '婆婆不吃辣');
    embedded.length = 0;
    const guard = (member: string) => ({
      sql: `EXISTS (SELECT 1 FROM ${schema}.embed_members WHERE member = $1) -- a trailing comment`,
      params: [member],
    });
    expect(await store.recallIf(guard('u2'), 'household:a', '婆婆的秘密')).toBeUndefined();
    expect(embedded).toEqual([]);
    expect((await store.recallIf(guard('u1'), 'household:a', '婆婆吃辣吗'))?.[0]?.text).toBe('婆婆不吃辣');
    expect(embedded).toEqual(['婆婆吃辣吗']);
  });

  it('refuses a guard placeholder without its parameter (a programmer mistake)', async () => {
    const store = await sqlMemoryStore(pool, { table: `${schema}.guarded_bad` });
    await expect(store.recallIf({ sql: '$2 = 1', params: [1] }, 'household:a', '辣')).rejects.toThrow(
      RangeError,
    );
    await expect(store.recallIf({ sql: '$0 = 1', params: [1] }, 'household:a', '辣')).rejects.toThrow(
      RangeError,
    );
  });
});
