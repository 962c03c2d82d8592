import { afterAll, beforeAll, describe } from 'vitest';
import { sqlConversationStore, sqlRunStore } from '@reins/stores';
import { conversationStoreContract } from '../../reins/test/contract/conversation-store-contract.js';
import { runStoreContract } from '../../reins/test/contract/run-store-contract.js';
import { openPglite, openPostgres, type TestDatabase } from './sql-store-fixtures.js';

// Both contract suites on both databases; each test gets a schema of its own.
for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(name, () => {
    let database: TestDatabase | undefined;
    beforeAll(async () => {
      database = await openDatabase();
    }, 30_000);
    afterAll(async () => {
      await database?.close();
    });
    const ready = (): TestDatabase => {
      if (database === undefined) throw new Error(`${name} did not open`);
      return database;
    };

    runStoreContract(`sqlRunStore on ${name}`, async () => {
      const { db, fresh } = ready();
      const { schema, drop } = await fresh();
      return { store: await sqlRunStore(db, { schema }), close: drop };
    });
    runStoreContract(`sqlRunStore on ${name}, encoding in its codec thread`, async () => {
      const { db, fresh } = ready();
      const { schema, drop } = await fresh();
      const store = await sqlRunStore(db, { schema, codecThread: true });
      return {
        store,
        close: async () => {
          await store.close();
          await drop();
        },
      };
    });
    conversationStoreContract(`sqlConversationStore on ${name}`, async () => {
      const { db, fresh } = ready();
      const { schema, drop } = await fresh();
      return { store: await sqlConversationStore(db, { schema }), close: drop };
    });
  });
}
