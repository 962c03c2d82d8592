import { describe, expect, it } from 'vitest';
import { appendBatcher } from '../src/append-batcher.js';
import type { PgQueryable } from '../src/pg-blob-store.js';

describe('appendBatcher', () => {
  it('refuses a job whose bodies do not match its sequence numbers, before any statement', async () => {
    const statements: unknown[] = [];
    const db: PgQueryable = {
      query: async (text, params) => {
        statements.push([text, params]);
        return { rows: [] };
      },
    };
    const batcher = appendBatcher(db, 'runs', 'events');
    const job = { runId: 'r1', expected: 0, seqs: [0, 1], bodies: ['{}'], status: 'running', updatedAt: 1 };
    await expect(batcher.submit(job)).rejects.toThrow(/2 seqs but 1 bodies/);
    expect(statements).toEqual([]);
  });

  it('sends the bodies as one JSON array, in order', async () => {
    const params: unknown[][] = [];
    const db: PgQueryable = {
      query: async (_text, values = []) => {
        params.push(values);
        return { rows: [{ run_id: 'r1' }, { run_id: 'r1' }] };
      },
    };
    const bodies = ['{"v":2,"t":"a \\"quoted\\" \\\\ text"}', '{"v":2,"t":"鸡蛋"}'];
    const inserted = await appendBatcher(db, 'runs', 'events').submit({
      runId: 'r1',
      expected: 0,
      seqs: [0, 1],
      bodies,
      status: 'success',
      updatedAt: 1,
    });
    expect(inserted).toBe(2);
    expect(JSON.parse(params[0]?.[7] as string)).toEqual(bodies);
  });
});
