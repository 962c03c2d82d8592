import { afterAll, beforeAll, describe } from 'vitest';
import { sqlConversationStore, sqlMemoryStore, sqlRunStore } from '@reins/stores';
import { conversationStoreContract } from '../../../packages/reins/test/contract/conversation-store-contract.js';
import { memoryStoreContract } from '../../../packages/reins/test/contract/memory-store-contract.js';
import { runStoreContract } from '../../../packages/reins/test/contract/run-store-contract.js';
import type { Db } from '../src/db/db.js';
import { pgQueryable } from '../src/db/pg-queryable.js';
import { openPgliteThread } from '../src/db/pglite-thread.js';
import { pgliteTemplate } from './backends.js';

// Issue 17.1: `@reins/stores` on the embedded database as `npm start` opens it (PGlite in a
// worker thread, through the kitchen's `pgQueryable`), held to the same contract suites as the
// in-memory, in-thread PGlite and PostgreSQL stores. Each test gets a schema of its own.
let db: Db | undefined;
let schemas = 0;
beforeAll(async () => {
  db = await openPgliteThread({ loadDataDir: await pgliteTemplate() });
}, 60_000);
afterAll(async () => {
  await db?.close();
});

async function freshSchema(): Promise<{ schema: string; drop: () => Promise<void> }> {
  if (db === undefined) throw new Error('the database did not open');
  const open = db;
  const schema = `stores_thread_${++schemas}`;
  await open.exec(`CREATE SCHEMA ${schema}`);
  return { schema, drop: () => open.exec(`DROP SCHEMA ${schema} CASCADE`) };
}
const queryable = () => {
  if (db === undefined) throw new Error('the database did not open');
  return pgQueryable(db);
};

describe('PGlite in a worker thread', () => {
  runStoreContract('sqlRunStore on PGlite in a thread', async () => {
    const { schema, drop } = await freshSchema();
    return { store: await sqlRunStore(queryable(), { schema }), close: drop };
  });
  conversationStoreContract('sqlConversationStore on PGlite in a thread', async () => {
    const { schema, drop } = await freshSchema();
    return { store: await sqlConversationStore(queryable(), { schema }), close: drop };
  });
  memoryStoreContract('sqlMemoryStore on PGlite in a thread', async (options = {}) => {
    const { schema } = await freshSchema(); // dropped with the database
    return sqlMemoryStore(queryable(), { table: `${schema}.memories`, ...options });
  });
});
