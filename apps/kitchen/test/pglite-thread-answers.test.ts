import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPgliteThread } from '../src/db/pglite-thread.js';
import { pgliteTemplate } from './backends.js';

/** Keeps this thread busy, as a caller's continuation does once it has its answer. */
const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('the PGlite thread hands every answer it got to its caller', () => {
  it('statements answered before close get their own answers, and close resolves', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pglite-thread-close-'));
    try {
      const db = await openPgliteThread({ dataDir: dir, loadDataDir: await pgliteTemplate() });
      await db.exec('CREATE TABLE closing (n int NOT NULL)');
      // Many writes at once, each caller busy a while once answered: their answers are handed
      // out paced over many turns of the loop while the thread, closed after them, exits.
      const writes = Array.from({ length: 800 }, async (_, i) => {
        await db.query('INSERT INTO closing VALUES ($1)', [i]);
        busy(1);
      });
      const closing = db.close();
      const failed = (await Promise.allSettled(writes)).filter((o) => o.status === 'rejected');
      const closed = await closing.then(
        () => 'closed',
        (error: unknown) => String(error),
      );
      const reopened = await openPgliteThread({ dataDir: dir });
      const [row] = await reopened.query<{ n: number }>('SELECT count(*)::int AS n FROM closing');
      await reopened.close();
      expect({ stored: row?.n, failed: failed.length, closed }).toEqual({
        stored: 800,
        failed: 0,
        closed: 'closed',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a transaction begun behind a burst of answers is not rolled back for idling: its answers are not queued', async () => {
    const db = await openPgliteThread({ loadDataDir: await pgliteTemplate(), transactionIdleTimeoutMs: 300 });
    try {
      // 600 answers ahead of BEGIN's, each caller busy 2 ms: ~1.2 s of paced hand-out here, while
      // the open transaction's idle clock runs in the database thread from BEGIN's answer.
      const burst = Array.from({ length: 600 }, async (_, i) => {
        await db.query('SELECT $1::int AS i', [i]);
        busy(2);
      });
      const tx = db.transaction(async (t) => t.query('SELECT 1 AS one'));
      const [outcome] = await Promise.allSettled([tx, ...burst]);
      expect(outcome).toEqual({ status: 'fulfilled', value: [{ one: 1 }] });
    } finally {
      await db.close();
    }
  }, 60_000);
});
