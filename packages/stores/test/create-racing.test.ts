import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgBlobStore, sqlConversationStore, sqlMemoryStore, sqlRunStore } from '@reins/stores';
import { createRacing } from '../src/sql-schema.js';
import { openPostgres, type TestDatabase } from './sql-store-fixtures.js';

// CI (stop 30) saw four kitchen processes start on one empty database and one of them die with
// `type "reins_run_texts" already exists` after losing the creation race three times.

const raceLost = (code: string): Error => Object.assign(new Error(`lost: ${code}`), { code });

describe('createRacing', () => {
  const noPause = async (): Promise<void> => undefined;

  /** A creation whose n-th call (from 1) fails with `codeOf(n)`, or goes through when that is undefined; calls counted. */
  const creation = (codeOf: (call: number) => string | undefined) => {
    const counted = { calls: 0 };
    const create = async (): Promise<void> => {
      const code = codeOf(++counted.calls);
      if (code !== undefined) throw raceLost(code);
    };
    return { create, counted };
  };

  it('tries again after each lost race until the creation goes through', async () => {
    const { create, counted } = creation((n) => (n <= 6 ? ['23505', '42P07', '42710'][n % 3] : undefined));
    await createRacing(create, 10, noPause);
    expect(counted.calls).toBe(7);
  });

  it('gives up after its attempts with the last race error', async () => {
    const { create, counted } = creation(() => '42710');
    await expect(createRacing(create, 4, noPause)).rejects.toMatchObject({ code: '42710' });
    expect(counted.calls).toBe(4);
  });

  it('does not try again after an error that is not a lost race', async () => {
    const { create, counted } = creation(() => '42601'); // syntax error
    await expect(createRacing(create, 10, noPause)).rejects.toMatchObject({ code: '42601' });
    expect(counted.calls).toBe(1);
  });
});

describe('stores opened by many instances at once on an empty PostgreSQL schema', () => {
  let database: TestDatabase;
  const pools: pg.Pool[] = [];
  const INSTANCES = 8;

  beforeAll(async () => {
    database = await openPostgres();
    for (let i = 0; i < INSTANCES; i++) {
      // One connection each: every instance is its own session, as separate processes are.
      pools.push(new pg.Pool({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test', max: 1 }));
    }
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await database.close();
  });

  it.each([1, 2, 3])('all %i-th round instances open every store', async () => {
    const { schema } = await database.fresh();
    const opened = await Promise.allSettled(
      pools.map(async (pool) => {
        const runs = await sqlRunStore(pool, { schema });
        const conversations = await sqlConversationStore(pool, { schema });
        await pgBlobStore(pool, { table: `${schema}.reins_blobs` });
        await sqlMemoryStore(pool, { table: `${schema}.reins_memories` });
        await runs.close();
        return conversations;
      }),
    );
    const failures = opened.flatMap((result) =>
      result.status === 'rejected' ? [String(result.reason)] : [],
    );
    expect(failures).toEqual([]);
    const { rows } = await database.db.query(
      `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1`,
      [schema],
    );
    expect(rows[0]?.['n']).toBeGreaterThanOrEqual(5);
  });
});
