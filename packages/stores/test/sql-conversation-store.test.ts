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

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlConversationStore on ${name}: turns added at once`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openDatabase();
    }, 30_000);
    afterAll(async () => {
      await database?.close();
    });

    /** The store over a database that counts the statements writing turns. */
    async function counted(schema: string) {
      let writes = 0;
      const store = await sqlConversationStore(
        {
          query: (text, values) => {
            if (text.includes(`INSERT INTO ${schema}.reins_conversation_turns`)) writes++;
            return database.db.query(text, values);
          },
        },
        { schema },
      );
      return { store, writes: () => writes };
    }
    const DAY = 86_400_000;
    const turn = (runId: string, at: number, extra: object = {}) => ({
      runId,
      query: `问题 ${runId}`,
      status: 'running' as const,
      at,
      ...extra,
    });

    it('turns of many conversations go as one statement, each as it was given', async () => {
      const { schema } = await database.fresh();
      const { store, writes } = await counted(schema);
      const ids = Array.from({ length: 30 }, (_, i) => `many-${i}`);
      const added = await Promise.all(
        ids.map((id, i) =>
          store.addTurn(
            id,
            `owner-${i % 2}`,
            turn(`run-${i}`, T0 + i, i % 3 === 0 ? { answer: '好', about: { n: i }, answerData: [i] } : {}),
            DAY,
          ),
        ),
      );
      expect(added.every(Boolean)).toBe(true);
      expect(writes()).toBe(1);
      for (const [i, id] of ids.entries()) {
        const got = await store.get(id, `owner-${i % 2}`, T0 + i);
        expect(got?.conversation).toMatchObject({
          id,
          title: `问题 run-${i}`,
          turnCount: 1,
          expiresAt: T0 + i + DAY,
        });
        expect(got?.turns).toEqual([
          turn(`run-${i}`, T0 + i, i % 3 === 0 ? { answer: '好', about: { n: i }, answerData: [i] } : {}),
        ]);
      }
    });

    it("a conversation's turns added at once are written in order, one per statement; another owner's is refused alone", async () => {
      const { schema } = await database.fresh();
      const { store, writes } = await counted(schema);
      expect(await store.addTurn('theirs', 'bob', turn('b1', T0), DAY)).toBe(true);
      const before = writes();
      const added = await Promise.all([
        store.addTurn('mine', 'alice', turn('a1', T0 + 1), DAY),
        store.addTurn('theirs', 'alice', turn('a-steal', T0 + 1), DAY), // bob's, not expired
        store.addTurn('mine', 'alice', turn('a2', T0 + 2), DAY),
        store.addTurn('mine', 'alice', { ...turn('a1', T0 + 3), status: 'success', answer: '番茄炒蛋' }, DAY),
        store.addTurn('other', 'alice', turn('o1', T0 + 1), DAY),
      ]);
      expect(added).toEqual([true, false, true, true, true]);
      expect(writes() - before).toBe(3); // mine's three turns need three statements
      expect((await store.get('mine', 'alice', T0 + 3))?.turns).toEqual([
        { ...turn('a1', T0 + 3), status: 'success', answer: '番茄炒蛋' },
        turn('a2', T0 + 2),
      ]);
      expect((await store.get('theirs', 'bob', T0 + 1))?.turns).toEqual([turn('b1', T0)]);
      expect(await store.get('theirs', 'alice', T0 + 1)).toBeUndefined();
      expect((await store.get('other', 'alice', T0 + 1))?.turns).toEqual([turn('o1', T0 + 1)]);
    });

    it('a turn whose text the database refuses (a NUL) fails alone: the others of its statement are written', async () => {
      const { schema } = await database.fresh();
      const { store } = await counted(schema);
      const outcomes = await Promise.allSettled([
        store.addTurn('nul-1', 'alice', turn('n1', T0), DAY),
        store.addTurn('nul-2', 'alice', { ...turn('n2', T0), query: 'a\u0000b' }, DAY),
        store.addTurn('nul-3', 'alice', turn('n3', T0, { about: { x: 1 } }), DAY),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((await store.get('nul-1', 'alice', T0))?.turns).toEqual([turn('n1', T0)]);
      expect(await store.get('nul-2', 'alice', T0)).toBeUndefined();
      expect((await store.get('nul-3', 'alice', T0))?.turns).toEqual([turn('n3', T0, { about: { x: 1 } })]);
    });

    it('a turn whose value cannot be JSON fails alone (its caller gets the error)', async () => {
      const { schema } = await database.fresh();
      const { store } = await counted(schema);
      const outcomes = await Promise.allSettled([
        store.addTurn('json-1', 'alice', turn('j1', T0), DAY),
        store.addTurn('json-2', 'alice', turn('j2', T0, { about: { n: 10n } }), DAY),
        store.addTurn('json-3', 'alice', turn('j3', T0), DAY),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
      expect((await store.get('json-3', 'alice', T0))?.turns).toEqual([turn('j3', T0)]);
    });

    it('ids with a lone surrogate are the rows PostgreSQL makes of them (U+FFFD), and never fail others', async () => {
      const { schema } = await database.fresh();
      const { store } = await counted(schema);
      const added = await Promise.all([
        store.addTurn('y\uD800', 'alice', turn('s1', T0), DAY),
        store.addTurn('y\uDC00', 'alice', turn('s2', T0 + 1), DAY), // the same row: the next statement
        store.addTurn('innocent', 'alice', turn('i1', T0), DAY),
      ]);
      expect(added).toEqual([true, true, true]);
      expect((await store.get('y\uFFFD', 'alice', T0 + 1))?.turns.map((t) => t.runId)).toEqual(['s1', 's2']);
      expect((await store.get('innocent', 'alice', T0))?.turns).toEqual([turn('i1', T0)]);
    });

    it('in one statement, an expired conversation starts afresh while a live one goes on', async () => {
      const { schema } = await database.fresh();
      const { store, writes } = await counted(schema);
      await store.addTurn('expired', 'alice', turn('e1', T0), 1_000);
      await store.addTurn('live', 'alice', turn('l1', T0), DAY);
      const later = T0 + 5_000;
      const before = writes();
      const added = await Promise.all([
        store.addTurn('expired', 'bob', turn('e2', later), DAY), // expired: anyone may start it afresh
        store.addTurn('live', 'alice', turn('l2', later), DAY),
      ]);
      expect(added).toEqual([true, true]);
      expect(writes() - before).toBe(1);
      const expired = await store.get('expired', 'bob', later);
      expect(expired?.conversation).toMatchObject({ ownerId: 'bob', createdAt: later, turnCount: 1 });
      expect(expired?.turns).toEqual([turn('e2', later)]);
      const live = await store.get('live', 'alice', later);
      expect(live?.conversation).toMatchObject({ createdAt: T0, updatedAt: later, turnCount: 2 });
      expect(live?.turns.map((t) => t.runId)).toEqual(['l1', 'l2']);
    });
  });
}
