import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { sqlRunStore } from '@reins/stores';
import { openPglite, openPostgres, type TestDatabase } from './sql-store-fixtures.js';

// Found in review: a writer whose cached codec state is AHEAD of the database (the run was
// deleted by another process: `deleteConversation` from an API instance in shared mode) reports
// a retried batch — or an empty one — as stored, though the run and its events are gone.

const T0 = 1_796_137_877_768;
const step = (runId: string, seq: number): RunEvent =>
  ({ type: 'step', phase: 'observe', index: 1, runId, seq, at: T0 + seq }) as unknown as RunEvent;
const events = (runId: string, from: number, to: number): RunEvent[] =>
  Array.from({ length: to - from }, (_, i) => step(runId, from + i));
const newRun = (runId: string) => ({
  runId,
  ownerId: 'owner-a',
  agent: 'k',
  conversationId: 'conv-1',
  request: { q: '?' },
  createdAt: T0,
});

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlRunStore on ${name}: appends to a run another process deleted`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openDatabase();
    }, 30_000);
    afterAll(async () => {
      await database.close();
    });

    for (const codecThread of [false, true]) {
      // Contract: packages/reins/src/store/run-store.ts:72-76 — "`append(runId, events)` stores
      // `events` … durably before it resolves … Appending to a run that does not exist rejects."
      // (memoryRunStore rejects here). sql-run-store.ts:130-134 returns early when every event's
      // seq is below the count of the *cached* state, without asking the database, so a retried
      // batch (or an empty one) to a run deleted by another instance resolves as if stored.
      it(`a retried batch to a run deleted elsewhere rejects instead of reporting it stored (codec ${codecThread ? 'in its thread' : 'here'})`, async () => {
        const { schema } = await database.fresh();
        const worker = await sqlRunStore(database.db, { schema, codecThread }); // holds the run
        const api = await sqlRunStore(database.db, { schema }); // another process
        try {
          await worker.create(newRun('gone-1'));
          await worker.append('gone-1', events('gone-1', 0, 3));
          expect(await api.deleteConversation('conv-1', 'owner-a')).toBe(1);
          expect(await worker.load('gone-1')).toBeUndefined();
          // The runtime retries its last batch (a lost acknowledgement): the events are not stored.
          await expect(worker.append('gone-1', events('gone-1', 0, 3))).rejects.toThrow(/does not exist/);
          await expect(worker.append('gone-1', [])).rejects.toThrow(/does not exist/);
        } finally {
          await worker.close();
        }
      });
    }
  });
}
