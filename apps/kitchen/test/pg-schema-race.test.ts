import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { openPgDb } from '../src/db/pg-db.js';
import { BACKENDS, PG_URL } from './backends.js';

// Instances of the shared mode start together on a schema none of them has made yet: each runs
// `CREATE SCHEMA IF NOT EXISTS`, which is not atomic across sessions (23505 on pg_namespace).

describe.skipIf(BACKENDS[1]?.skip ?? true)('kitchen instances opening a new schema at once', () => {
  const schemas: string[] = [];
  const opened: Db[] = [];
  afterAll(async () => {
    for (const db of opened) await db.close();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it.each([1, 2, 3])('round %i: eight instances all open it', async (round) => {
    const schema = `kitchen_schema_race_${process.pid}_${round}_${Date.now()}`;
    schemas.push(schema);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => openPgDb({ connectionString: PG_URL, schema, maxConnections: 1 })),
    );
    for (const outcome of outcomes) if (outcome.status === 'fulfilled') opened.push(outcome.value);
    expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []))).toEqual([]);
    const [db] = opened.slice(-1);
    expect(await db?.query('SELECT current_schema() AS s')).toEqual([{ s: schema }]);
  });
});
