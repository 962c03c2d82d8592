import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryConversationStore, type ConversationTurn } from 'reins';
import { sqlConversationStore, type PgQueryable } from '@reins/stores';
import { openPglite, openPostgres, type TestDatabase } from './sql-store-fixtures.js';

const T0 = 1_796_137_877_768;
const DAY = 86_400_000;
const turn = (runId: string, query: string, at: number): ConversationTurn => ({
  runId,
  query,
  status: 'success',
  at,
});

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlConversationStore on ${name}: owner checks and limits`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openDatabase();
    }, 30_000);
    afterAll(async () => {
      await database.close();
    });

    // Contract: packages/reins/src/store/conversation-store.ts:71-72 — "Every read and write
    // takes the owner: someone else's conversation is reported exactly like one that does not
    // exist". `get` (sql-conversation-store.ts:80-90) checks the owner in its first statement
    // only; the second reads the turns by (conversation_id, generation) alone. A conversation
    // deleted (by its owner, or swept) and made again by another owner (client-chosen ids:
    // packages/server/src/conversations.ts readConversationId) between the two statements
    // starts at generation 0 again, so alice is shown mallory's turns under her header.
    it("get never returns another owner's turns, even when the id is reused between its two reads", async () => {
      const { schema } = await database.fresh();
      let between: (() => Promise<void>) | undefined;
      const db: PgQueryable = {
        query: async (text, values) => {
          const result = await database.db.query(text, values);
          if (between !== undefined && text.includes('AS turn_count')) {
            const run = between;
            between = undefined;
            await run(); // another request, served by another instance, in between
          }
          return result;
        },
      };
      const alices = await sqlConversationStore(db, { schema });
      const elsewhere = await sqlConversationStore(database.db, { schema });
      await alices.addTurn('shared-id', 'alice', turn('a1', 'alice: my diagnosis is …', T0), DAY);
      between = async () => {
        await elsewhere.delete('shared-id', 'alice');
        await elsewhere.addTurn('shared-id', 'mallory', turn('m1', 'mallory: private', T0 + 1), DAY);
      };
      const loaded = await alices.get('shared-id', 'alice', T0 + 2);
      const leaked = (loaded?.turns ?? []).filter((t) => t.runId === 'm1');
      expect(leaked).toEqual([]);
      // And what it returns is one snapshot: the count in the header is the turns it returns.
      if (loaded !== undefined) expect(loaded.turns.length).toBe(loaded.conversation.turnCount);
    });

    // Contract: conversation-store.ts:79 — "`list` the owner's conversations newest first
    // (by `updatedAt`), at most `limit`"; memoryConversationStore (the reference) takes any
    // number (`slice(0, Math.max(0, limit))`): `Infinity` lists them all. The SQL store sends
    // `Math.floor(limit)` as LIMIT (sql-conversation-store.ts:99) and PostgreSQL refuses it:
    // `invalid input syntax for type bigint: "Infinity"`.
    it('list with an unbounded limit lists every conversation, as the memory store does', async () => {
      const { schema } = await database.fresh();
      const sql = await sqlConversationStore(database.db, { schema });
      const memory = memoryConversationStore();
      for (const store of [sql, memory]) {
        await store.addTurn('c1', 'alice', turn('r1', 'one', T0), DAY);
        await store.addTurn('c2', 'alice', turn('r2', 'two', T0 + 1), DAY);
      }
      expect((await memory.list('alice', T0, Infinity)).map((c) => c.id)).toEqual(['c2', 'c1']);
      expect((await sql.list('alice', T0, Infinity)).map((c) => c.id)).toEqual(['c2', 'c1']);
    });
  });
}
