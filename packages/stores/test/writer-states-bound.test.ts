import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { sqlRunStore } from '@reins/stores';
import { openPglite, type TestDatabase } from './sql-store-fixtures.js';

// Found in review: `maxWriterStates: 0` was accepted, and then every append failed ("codec: no
// state held for run …": the state was evicted as soon as it was set). The bound is a whole
// number ≥ 1 now, refused at construction otherwise; 1 keeps only the run being written, and
// every other run's state is rebuilt from its rows on its next append.

const T0 = 1_796_137_877_768;
const step = (runId: string, seq: number): RunEvent =>
  ({ type: 'step', phase: 'observe', index: 1, runId, seq, at: T0 + seq }) as unknown as RunEvent;
const events = (runId: string, from: number, to: number): RunEvent[] =>
  Array.from({ length: to - from }, (_, i) => step(runId, from + i));
const newRun = (runId: string) => ({ runId, ownerId: 'o', agent: 'k', request: { q: '?' }, createdAt: T0 });

describe('sqlRunStore maxWriterStates', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openPglite();
  }, 30_000);
  afterAll(async () => {
    await database.close();
  });

  it.each([0, -1, 1.5, Number.NaN])('%s is refused when the store is made', async (max) => {
    const { schema } = await database.fresh();
    await expect(sqlRunStore(database.db, { schema, maxWriterStates: max })).rejects.toThrow(RangeError);
  });

  for (const codecThread of [false, true]) {
    it(`1 keeps one run's state; two runs written in turn are both stored (codec ${codecThread ? 'in its thread' : 'here'})`, async () => {
      const { schema } = await database.fresh();
      const store = await sqlRunStore(database.db, { schema, maxWriterStates: 1, codecThread });
      try {
        await store.create(newRun('one-a'));
        await store.create(newRun('one-b'));
        await store.append('one-a', events('one-a', 0, 2));
        await store.append('one-b', events('one-b', 0, 2)); // evicts one-a's state
        await store.append('one-a', events('one-a', 2, 3)); // rebuilt from its rows
        await store.append('one-b', events('one-b', 2, 4));
        expect((await store.load('one-a'))?.events).toEqual(events('one-a', 0, 3));
        expect((await store.load('one-b'))?.events).toEqual(events('one-b', 0, 4));
      } finally {
        await store.close();
      }
    });
  }
});
