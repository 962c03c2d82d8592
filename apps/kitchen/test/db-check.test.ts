import { describe, expect, it } from 'vitest';
import type { Db, DbProbe } from '../src/db/db.js';
import { dbCheck } from '../src/server/db-check.js';

// Issue 17.1: with PGlite in its thread, /health's db check asks the thread's probe instead of
// queueing a SELECT 1 behind every statement in flight (a loaded server read as unavailable).
const fakeDb = (probe?: () => Promise<DbProbe>): Db & { selects: number } => {
  const db = {
    backend: 'pglite' as const,
    selects: 0,
    query: async () => {
      db.selects++;
      return [];
    },
    exec: async () => undefined,
    transaction: async () => {
      throw new Error('unused');
    },
    close: async () => undefined,
    ...(probe === undefined ? {} : { probe }),
  };
  return db;
};

describe('dbCheck', () => {
  it('without a probe (PostgreSQL, PGlite in the main thread): a SELECT 1', async () => {
    const db = fakeDb();
    expect(await dbCheck(db)()).toEqual({ status: 'up', backend: 'pglite' });
    expect(db.selects).toBe(1);
  });

  it('busy but moving: up, with how many wait, and no statement of its own', async () => {
    const db = fakeDb(async () => ({ waiting: 180, sinceOkMs: 40 }));
    expect(await dbCheck(db)()).toEqual({ status: 'up', backend: 'pglite', waiting: 180 });
    expect(db.selects).toBe(0);
  });

  it('statements waiting and none succeeded for over 10 s: down, saying so', async () => {
    const db = fakeDb(async () => ({ waiting: 3, sinceOkMs: 10_001 }));
    expect(await dbCheck(db)()).toMatchObject({
      status: 'down',
      detail: 'no statement has succeeded for 10001 ms; 3 waiting',
    });
    // Idle for long is not stuck: nothing waits (the probe then ran its own SELECT 1).
    expect(await dbCheck(fakeDb(async () => ({ waiting: 0, sinceOkMs: 60_000 })))()).toMatchObject({
      status: 'up',
    });
  });

  it('a dead database thread: the probe throws, the check fails', async () => {
    const dead = fakeDb(() => Promise.reject(Object.assign(new Error('stopped'), { code: '57P02' })));
    await expect(dbCheck(dead)()).rejects.toThrow('stopped');
  });
});
