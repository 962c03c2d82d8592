import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { pgBlobStore } from '@reins/stores';

// The machine's PostgreSQL (CI has it too); a schema of our own per run, dropped afterwards.
const pool = new pg.Pool({
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: 'test',
  connectionTimeoutMillis: 3_000,
  statement_timeout: 10_000,
});
const schema = `reins_blobs_test_${process.pid}_${Date.now()}`;

beforeAll(async () => {
  await pool.query(`CREATE SCHEMA ${schema}`);
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describe('pgBlobStore (shared mode)', () => {
  it('stores, overwrites and reads blobs by reference; a missing one is undefined', async () => {
    const store = await pgBlobStore(pool, { table: `${schema}.blobs` });
    await store.put('blob:r1/a1', '{"v":1}');
    expect(await store.get('blob:r1/a1')).toBe('{"v":1}');
    await store.put('blob:r1/a1', '{"v":"菜"}');
    expect(await store.get('blob:r1/a1')).toBe('{"v":"菜"}');
    expect(await store.get("blob:r1/a2'; DROP TABLE blobs; --")).toBeUndefined();
    const { rows } = await pool.query(`SELECT bytes FROM ${schema}.blobs WHERE ref = $1`, ['blob:r1/a1']);
    expect(rows[0]?.bytes).toBe(11); // UTF-8 bytes: 8 ASCII + 菜 (3)
  });

  it('refuses a table name that is not a plain identifier', async () => {
    await expect(pgBlobStore(pool, { table: 'blobs; DROP TABLE x' })).rejects.toThrow(/plain identifier/);
  });

  it('a run keeps a large result there by reference, and a second store instance reads it back', async () => {
    const big = defineTool({
      name: 'big',
      description: 'big',
      input: z.object({}),
      output: z.object({ rows: z.array(z.string()) }),
      readOnly: true,
      run: () => ({ rows: Array.from({ length: 3_000 }, (_, i) => `row ${i} `.padEnd(60, '.')) }),
    });
    const store = await pgBlobStore(pool, { table: `${schema}.run_blobs` });
    const run = runAgent({
      query: 'q',
      model: scriptModel(['{"action":"big","input":{}}', '{"final":"done"}']),
      tools: [big],
      blobStore: store,
    });
    await run.result;
    const observe = run.events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep;
    const ref = observe.observation.resultRef?.ref ?? '';
    expect(ref).toMatch(/^blob:/);
    const other = await pgBlobStore(pool, { table: `${schema}.run_blobs` }); // another instance
    const json = await other.get(ref);
    expect((JSON.parse(json ?? '{}') as { rows: string[] }).rows).toHaveLength(3_000);
  });
});
