import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { sqlRunStore } from '@reins/stores';
import { openPglite, type TestDatabase } from './sql-store-fixtures.js';

// Review finding: `maxWriterStates: 0` ("keep no codec state between appends") makes every
// append fail, instead of rebuilding the state from the rows for each append.

const T0 = 1_796_137_877_768;
const step = (runId: string, seq: number): RunEvent =>
  ({ type: 'step', phase: 'observe', index: 1, runId, seq, at: T0 + seq }) as unknown as RunEvent;
const events = (runId: string, from: number, to: number): RunEvent[] =>
  Array.from({ length: to - from }, (_, i) => step(runId, from + i));
const newRun = (runId: string) => ({ runId, ownerId: 'o', agent: 'k', request: { q: '?' }, createdAt: T0 });

describe('sqlRunStore with maxWriterStates: 0', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openPglite();
  }, 30_000);
  afterAll(async () => {
    await database.close();
  });

  for (const codecThread of [false, true]) {
    // Contract: packages/stores/src/sql-run-store.ts:23 — `maxWriterStates` is "How many runs'
    // codec states to keep between appends"; writer-states.ts:3-5 — "a run whose state was
    // dropped (ended, evicted, or a write that failed) is rebuilt from its stored rows on its next
    // append". And the RunStore contract (packages/reins/src/store/run-store.ts:72-73): `append`
    // stores the events. Keeping 0 states between appends must still store them (each append
    // rebuilding), but WriterStates.set (writer-states.ts:27-34) evicts the state it was just
    // given, so `encode` finds none: "codec: no state held for run …".
    it(`stores appends when no state is kept between them (codec ${codecThread ? 'in its thread' : 'here'})`, async () => {
      const { schema } = await database.fresh();
      const store = await sqlRunStore(database.db, { schema, maxWriterStates: 0, codecThread });
      try {
        await store.create(newRun('zero-1'));
        await store.append('zero-1', events('zero-1', 0, 2));
        await store.append('zero-1', events('zero-1', 2, 3));
        expect((await store.load('zero-1'))?.events).toEqual(events('zero-1', 0, 3));
      } finally {
        await store.close();
      }
    });
  }
});
