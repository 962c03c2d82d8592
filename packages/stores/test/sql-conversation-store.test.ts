import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlConversationStore } from '@reins/stores';
import { openPglite, openPostgres, type TestDatabase } from './sql-store-fixtures.js';

const T0 = 1_796_137_877_768;

/** The conversation tables as the first release of version 1 made them: no `answer_data`. */
async function oldLayout(database: TestDatabase, schema: string): Promise<void> {
  const statements = [
    `CREATE TABLE ${schema}.reins_schema (component text PRIMARY KEY, version integer NOT NULL)`,
    `INSERT INTO ${schema}.reins_schema VALUES ('conversations', 1)`,
    `CREATE TABLE ${schema}.reins_conversations (
       conversation_id text PRIMARY KEY, owner_id text NOT NULL, title text NOT NULL,
       generation integer NOT NULL DEFAULT 0, created_at double precision NOT NULL,
       updated_at double precision NOT NULL, expires_at double precision NOT NULL)`,
    `CREATE TABLE ${schema}.reins_conversation_turns (
       conversation_id text NOT NULL REFERENCES ${schema}.reins_conversations (conversation_id) ON DELETE CASCADE,
       generation integer NOT NULL, run_id text NOT NULL, turn_order bigserial, query text NOT NULL,
       answer text, status text NOT NULL, about jsonb, at double precision NOT NULL,
       PRIMARY KEY (conversation_id, generation, run_id))`,
    `INSERT INTO ${schema}.reins_conversations VALUES ('c1', 'alice', '今晚吃什么？', 0, ${T0}, ${T0}, ${T0 + 60_000})`,
    `INSERT INTO ${schema}.reins_conversation_turns (conversation_id, generation, run_id, query, answer, status, about, at)
     VALUES ('c1', 0, 'r1', '今晚吃什么？', '番茄炒蛋', 'success', '{"recipe":{"name":"番茄炒蛋"}}', ${T0})`,
  ];
  for (const statement of statements) await database.db.query(statement);
}

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlConversationStore on ${name}: answer data`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openDatabase();
    }, 30_000);
    afterAll(async () => {
      await database?.close();
    });

    it('tables of the first release gain the column: old turns read without answer data, new ones keep it', async () => {
      const { schema } = await database.fresh();
      await oldLayout(database, schema);
      const store = await sqlConversationStore(database.db, { schema });
      const answerData = { reply: '番茄炒蛋', cards: [{ type: 'recipe', name: '番茄炒蛋' }] };
      const before = await store.get('c1', 'alice', T0);
      expect(before?.turns).toEqual([
        {
          runId: 'r1',
          query: '今晚吃什么？',
          answer: '番茄炒蛋',
          status: 'success',
          about: { recipe: { name: '番茄炒蛋' } },
          at: T0,
        },
      ]);
      await store.addTurn(
        'c1',
        'alice',
        { runId: 'r2', query: '再来一个', status: 'success', answerData, at: T0 + 1 },
        60_000,
      );
      const after = await store.get('c1', 'alice', T0 + 1);
      expect(after?.turns.map((t) => t.answerData)).toEqual([undefined, answerData]);
      // Opening again (another instance starting) changes nothing.
      const again = await sqlConversationStore(database.db, { schema });
      expect((await again.get('c1', 'alice', T0 + 1))?.turns).toEqual(after?.turns);
      const { rows } = await database.db.query(`SELECT version FROM ${schema}.reins_schema`);
      expect(rows).toEqual([{ version: 1 }]);
    });
  });
}
