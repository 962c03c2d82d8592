import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { sqlRunStore, StoredEventError, type PgQueryable, type SqlRunStore } from '@reins/stores';
import { openPglite, openPostgres, type TestDatabase } from './sql-store-fixtures.js';

const T0 = 1_796_137_877_768;
const step = (runId: string, seq: number, items: string[]): RunEvent =>
  ({
    type: 'step',
    phase: 'observe',
    index: 1,
    startedAt: T0 + seq - 0.25,
    endedAt: T0 + seq + 0.0001,
    durationMs: 0.2501,
    actId: `a${seq}`,
    observation: { actId: `a${seq}`, tool: 'fridge_items', status: 'ok', result: { items } },
    runId,
    seq,
    at: T0 + seq + 0.0001,
  }) as unknown as RunEvent;
const events = (runId: string, from: number, to: number): RunEvent[] =>
  Array.from({ length: to - from }, (_, i) => step(runId, from + i, ['番茄', '鸡蛋', `菜${from + i}`]));
const newRun = (runId: string) => ({
  runId,
  ownerId: 'o',
  agent: 'kitchen',
  request: { q: '?' },
  createdAt: T0,
});

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlRunStore on ${name}`, () => {
    let database: TestDatabase;
    let schema: string;
    beforeAll(async () => {
      database = await openDatabase();
      schema = (await database.fresh()).schema;
    }, 30_000);
    afterAll(async () => {
      await database.close();
    });

    it('a fresh store instance (a restarted process) goes on writing a run another one wrote', async () => {
      const first = await sqlRunStore(database.db, { schema });
      await first.create(newRun('restart-1'));
      await first.append('restart-1', events('restart-1', 0, 3));
      const loadedFirst = await sqlRunStore(database.db, { schema });
      await loadedFirst.load('restart-1');
      await loadedFirst.append('restart-1', events('restart-1', 3, 5));
      const neverLoaded = await sqlRunStore(database.db, { schema });
      await neverLoaded.append('restart-1', events('restart-1', 5, 7));
      const loaded = await (await sqlRunStore(database.db, { schema })).load('restart-1');
      expect(loaded?.events).toEqual(events('restart-1', 0, 7));
      expect(loaded?.run.eventCount).toBe(7);
    });

    it('instances starting at once on an empty schema all get their tables (a lost creation race is retried)', async () => {
      const { schema: empty } = await database.fresh();
      const stores = await Promise.all(
        Array.from({ length: 6 }, () => sqlRunStore(database.db, { schema: empty })),
      );
      await stores[0]?.create(newRun('race-1'));
      await stores[5]?.append('race-1', events('race-1', 0, 2));
      expect((await stores[3]?.load('race-1'))?.events).toEqual(events('race-1', 0, 2));
    });

    it('two processes take turns on one run (shared mode: workers hand it over): each goes on where the other stopped', async () => {
      const workerA = await sqlRunStore(database.db, { schema });
      const workerB = await sqlRunStore(database.db, { schema });
      await workerA.create(newRun('turns-1'));
      await workerA.append('turns-1', events('turns-1', 0, 3)); // A's state: 3 events
      await workerB.append('turns-1', events('turns-1', 3, 6)); // B goes on (A's state is now stale)
      await workerA.append('turns-1', events('turns-1', 6, 8)); // A again: must not see a gap
      const loaded = await (await sqlRunStore(database.db, { schema })).load('turns-1');
      expect(loaded?.events).toEqual(events('turns-1', 0, 8));
      expect(loaded?.run.eventCount).toBe(8);
    });

    it('a writer whose state went stale (a retried batch elsewhere) re-reads the run and skips what is stored', async () => {
      const one = await sqlRunStore(database.db, { schema });
      const two = await sqlRunStore(database.db, { schema });
      await one.create(newRun('stale-1'));
      await one.append('stale-1', events('stale-1', 0, 2));
      await two.append('stale-1', events('stale-1', 0, 3)); // a retry of the same batch, one more event
      await one.append('stale-1', events('stale-1', 2, 4)); // `one` believes 2 are stored
      expect((await two.load('stale-1'))?.events).toEqual(events('stale-1', 0, 4));
    });

    it('a failed write stores nothing, and the next append writes from what is stored', async () => {
      let failNext = false;
      const flaky: PgQueryable = {
        query: async (text, values) => {
          if (failNext && text.includes('INSERT INTO')) {
            failNext = false;
            throw new Error('connection lost');
          }
          return database.db.query(text, values);
        },
      };
      const store = await sqlRunStore(flaky, { schema });
      await store.create(newRun('flaky-1'));
      await store.append('flaky-1', events('flaky-1', 0, 2));
      failNext = true;
      await expect(store.append('flaky-1', events('flaky-1', 2, 4))).rejects.toThrow('connection lost');
      expect((await store.load('flaky-1'))?.run.eventCount).toBe(2);
      await store.append('flaky-1', events('flaky-1', 2, 5));
      expect((await store.load('flaky-1'))?.events).toEqual(events('flaky-1', 0, 5));
    });

    it('with the codec in its thread: restarts, hand-overs, stale states and failed writes, mixed with stores that encode here', async () => {
      const thread = () => sqlRunStore(database.db, { schema, codecThread: true });
      const here = () => sqlRunStore(database.db, { schema });
      const threaded = [await thread(), await thread(), await thread()];
      try {
        const [a, b, c] = threaded as [SqlRunStore, SqlRunStore, SqlRunStore];
        await a.create(newRun('thread-1'));
        await a.append('thread-1', events('thread-1', 0, 3));
        await (await here()).append('thread-1', events('thread-1', 3, 5)); // hand-over to a store encoding here
        await a.append('thread-1', events('thread-1', 5, 6)); // a's state is stale: it re-reads the run
        await b.load('thread-1'); // a restarted process resumes from the rows (its thread too)
        await b.append('thread-1', events('thread-1', 6, 8));
        await c.append('thread-1', events('thread-1', 0, 9)); // never loaded, and a retried batch: skips 8
        expect((await (await here()).load('thread-1'))?.events).toEqual(events('thread-1', 0, 9));
        // Bodies written in the thread read back the same in this one, and the other way round.
        expect((await a.load('thread-1'))?.events).toEqual(events('thread-1', 0, 9));
      } finally {
        await Promise.all(threaded.map((store) => store.close()));
      }
    });

    for (const codecThread of [true, false]) {
      it(`close writes what was appended before it, then refuses more (codec ${codecThread ? 'in its thread' : 'here'})`, async () => {
        const store = await sqlRunStore(database.db, { schema, codecThread });
        const runIds = Array.from({ length: 12 }, (_, i) => `close-${i}-${String(codecThread)}`);
        for (const runId of runIds) await store.create(newRun(runId));
        // A shutdown: runs' last batches (two per run, chained) are still being written when close is called.
        const appends = runIds.flatMap((runId) => [
          store.append(runId, events(runId, 0, 3)),
          store.append(runId, events(runId, 3, 5)),
        ]);
        await new Promise((resolve) => setImmediate(resolve)); // the first encodes are under way
        const closing = store.close();
        await expect(store.append(runIds[0] as string, events(runIds[0] as string, 5, 6))).rejects.toThrow(
          'the run store is closed',
        );
        await expect(store.create(newRun('close-late'))).rejects.toThrow('the run store is closed');
        await Promise.all(appends);
        await closing;
        const reader = await sqlRunStore(database.db, { schema });
        for (const runId of runIds) expect((await reader.load(runId))?.events).toEqual(events(runId, 0, 5));
      });
    }

    it('stores each event as a small versioned body, its size in bytes beside it', async () => {
      const store = await sqlRunStore(database.db, { schema });
      await store.create(newRun('bytes-1'));
      await store.append('bytes-1', events('bytes-1', 0, 3));
      const { rows } = await database.db.query(
        `SELECT seq, body, bytes FROM ${schema}.reins_run_events WHERE run_id = $1 ORDER BY seq`,
        ['bytes-1'],
      );
      expect(rows.map((r) => JSON.parse(String(r['body'])) as { v: number }).every((b) => b.v === 1)).toBe(
        true,
      );
      for (const row of rows) expect(row['bytes']).toBe(Buffer.byteLength(String(row['body'])));
      const later = rows[2];
      expect(Number(later?.['bytes'])).toBeLessThan(JSON.stringify(events('bytes-1', 2, 3)[0]).length / 3);
    });

    it('refuses a body of an unknown codec version on load, with its code', async () => {
      const store = await sqlRunStore(database.db, { schema });
      await store.create(newRun('future-1'));
      await store.append('future-1', events('future-1', 0, 1));
      await database.db.query(
        `UPDATE ${schema}.reins_run_events SET body = '{"v":9,"d":{}}' WHERE run_id = $1`,
        ['future-1'],
      );
      const error = await (
        await sqlRunStore(database.db, { schema })
      )
        .load('future-1')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoredEventError);
      expect((error as StoredEventError).code).toBe('CODEC_VERSION');
    });

    it('records the tables’ version and refuses tables of a newer one', async () => {
      const { rows } = await database.db.query(
        `SELECT component, version FROM ${schema}.reins_schema ORDER BY component`,
      );
      expect(rows).toEqual([{ component: 'runs', version: 1 }]);
      const other = await database.fresh();
      await sqlRunStore(database.db, { schema: other.schema });
      await database.db.query(`UPDATE ${other.schema}.reins_schema SET version = 2`);
      await expect(sqlRunStore(database.db, { schema: other.schema })).rejects.toThrow(
        /version 2; this build knows 1/,
      );
    });

    it('refuses a schema or prefix that is not a plain identifier', async () => {
      await expect(sqlRunStore(database.db, { schema: 'x; DROP TABLE y' })).rejects.toThrow(
        /plain identifier/,
      );
      await expect(sqlRunStore(database.db, { prefix: 'Bad-' })).rejects.toThrow(/plain identifier/);
    });
  });
}

describe('sqlRunStore appends', () => {
  let database: TestDatabase;
  let schema: string;
  beforeAll(async () => {
    database = await openPglite();
    schema = (await database.fresh()).schema;
  }, 30_000);
  afterAll(async () => {
    await database.close();
  });

  /** The database, counting the statements that insert events. */
  function counting(): { db: PgQueryable; inserts: () => number } {
    let inserts = 0;
    return {
      db: {
        query: (text, values) => {
          if (text.includes(`INSERT INTO ${schema}.reins_run_events`)) inserts++;
          return database.db.query(text, values);
        },
      },
      inserts: () => inserts,
    };
  }

  it('of many runs in the same tick go to the database as one statement, each run guarded alone', async () => {
    const { db, inserts } = counting();
    const store = await sqlRunStore(db, { schema });
    const ids = Array.from({ length: 50 }, (_, i) => `tick-${i}`);
    for (const id of ids) await store.create(newRun(id));
    await store.append('tick-0', events('tick-0', 0, 1));
    const before = inserts();
    // tick-0 gets a retried event (skipped) and a new one; the others their first two.
    await Promise.all(ids.map((id) => store.append(id, events(id, 0, 2))));
    expect(inserts() - before).toBe(1);
    for (const id of ids) expect((await store.load(id))?.events).toEqual(events(id, 0, 2));
  });

  it('made in separate ticks while one is being written go together in the next statement', async () => {
    // Answers that lead to appends may arrive over several turns of the event loop (PGlite in its
    // thread hands them out paced): a tick alone would give each run a statement of its own.
    const { db: counted, inserts } = counting();
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    const db: PgQueryable = {
      query: async (text, values) => {
        if (holding && text.includes(`INSERT INTO ${schema}.reins_run_events`)) {
          holding = false;
          await held;
        }
        return counted.query(text, values);
      },
    };
    const store = await sqlRunStore(db, { schema });
    const ids = Array.from({ length: 20 }, (_, i) => `turns-${i}`);
    for (const id of ids) await store.create(newRun(id));
    const before = inserts();
    const first = store.append('turns-0', events('turns-0', 0, 1));
    const rest: Promise<void>[] = [];
    for (const id of ids.slice(1)) {
      await new Promise((resolve) => setImmediate(resolve)); // a turn of the event loop each
      rest.push(store.append(id, events(id, 0, 1)));
    }
    release();
    await Promise.all([first, ...rest]);
    expect(inserts() - before).toBe(2);
    for (const id of ids) expect((await store.load(id))?.events).toEqual(events(id, 0, 1));
  });

  it('answered by one statement resume paced: a turn of the event loop hands out no more once ~2 ms went on them', async () => {
    // A group commit of many runs would otherwise resume every run in one block of the loop.
    const store = await sqlRunStore(database.db, { schema });
    const ids = Array.from({ length: 4 }, (_, i) => `resume-${i}`);
    for (const id of ids) await store.create(newRun(id));
    const order: string[] = [];
    await Promise.all(
      ids.map(async (id, i) => {
        await store.append(id, events(id, 0, 1));
        order.push(id);
        // A timer's turn: with every run resumed in one block it would come after all of them.
        if (i === 0) setImmediate(() => order.push('timer turn'));
        const until = performance.now() + 3; // each resumed run is busy past the turn's budget
        while (performance.now() < until);
      }),
    );
    expect(order.indexOf('timer turn')).toBeGreaterThan(0);
    expect(order.indexOf('timer turn')).toBeLessThan(ids.length);
  });

  it('of one run, called without waiting, are written in call order; a bad one fails alone', async () => {
    const store = await sqlRunStore(database.db, { schema });
    await store.create(newRun('order-1'));
    const calls = [
      store.append('order-1', events('order-1', 0, 2)),
      store.append('order-1', events('order-1', 3, 4)), // a gap: rejects
      store.append('order-1', events('order-1', 2, 3)),
      store.append('order-1', events('order-1', 3, 5)),
    ];
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
    expect((await store.load('order-1'))?.events).toEqual(events('order-1', 0, 5));
  });
});

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlRunStore creates on ${name}`, () => {
    let database: TestDatabase;
    let schema: string;
    beforeAll(async () => {
      database = await openDatabase();
      schema = (await database.fresh()).schema;
    }, 30_000);
    afterAll(async () => {
      await database.close();
    });

    /** The database, counting the statements that insert run rows; `fail` makes the next one fail. */
    function counting(): { db: PgQueryable; inserts: () => number; failNext: () => void } {
      let inserts = 0;
      let fail = false;
      return {
        db: {
          query: (text, values) => {
            if (text.includes(`INSERT INTO ${schema}.reins_runs `)) {
              inserts++;
              if (fail) {
                fail = false;
                return Promise.reject(new Error('connection lost'));
              }
            }
            return database.db.query(text, values);
          },
        },
        inserts: () => inserts,
        failNext: () => (fail = true),
      };
    }

    it('of many runs at once go to the database as one statement, each run as it was given', async () => {
      const { db, inserts } = counting();
      const store = await sqlRunStore(db, { schema });
      const runs = Array.from({ length: 40 }, (_, i) => ({
        ...newRun(`create-${i}`),
        ownerId: `owner-${i % 3}`,
        createdAt: T0 + i + 0.5,
        request: { q: `问题 ${i}`, n: i },
        ...(i % 2 === 0 ? { conversationId: `c-${i}` } : {}),
      }));
      await Promise.all(runs.map((run) => store.create(run)));
      expect(inserts()).toBe(1);
      for (const run of runs) {
        const loaded = await store.load(run.runId);
        expect(loaded?.run).toEqual({ ...run, status: 'running', updatedAt: run.createdAt, eventCount: 0 });
      }
      // And they go on as runs: an append each, then read back.
      await Promise.all(runs.map((run) => store.append(run.runId, events(run.runId, 0, 1))));
      for (const run of runs) expect((await store.load(run.runId))?.events).toEqual(events(run.runId, 0, 1));
    });

    it('an id that exists, or that a run created with it at the same time takes, is refused alone', async () => {
      const { db, inserts } = counting();
      const store = await sqlRunStore(db, { schema });
      await store.create(newRun('taken-1'));
      const outcomes = await Promise.allSettled([
        store.create({ ...newRun('taken-1'), agent: 'second' }), // exists already
        store.create({ ...newRun('same-tick'), agent: 'first' }),
        store.create({ ...newRun('same-tick'), agent: 'second' }), // taken by the one before
        store.create(newRun('free-1')),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
      expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/taken-1 exists already/);
      expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/same-tick exists already/);
      expect(inserts()).toBe(3); // the second same-tick waits for the statement after the first's
      expect((await store.load('taken-1'))?.run.agent).toBe('kitchen');
      expect((await store.load('same-tick'))?.run.agent).toBe('first');
      expect((await store.load('free-1'))?.run.status).toBe('running');
    });

    it('a run whose data the database refuses (a NUL) fails alone: the others of its statement are made', async () => {
      const { db, inserts } = counting();
      const store = await sqlRunStore(db, { schema });
      const outcomes = await Promise.allSettled([
        store.create(newRun('nul-ok-1')),
        store.create({ ...newRun('nul-bad'), request: { q: 'a\u0000b' } }),
        store.create(newRun('nul-ok-2')),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
        code: expect.stringMatching(/^22/),
      });
      expect(inserts()).toBe(5); // the three; the first two (refused), each of them; the third
      expect((await store.load('nul-ok-1'))?.run.status).toBe('running');
      expect((await store.load('nul-ok-2'))?.run.status).toBe('running');
      expect(await store.load('nul-bad')).toBeUndefined();
    });

    it('a run whose request cannot be JSON, or whose id has a lone surrogate, fails or goes alone', async () => {
      const store = await sqlRunStore(database.db, { schema });
      const outcomes = await Promise.allSettled([
        store.create({ ...newRun('json-bad'), request: { n: 10n } as never }),
        store.create(newRun('run\uD800')),
        store.create(newRun('json-ok')),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
      expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
      expect((await store.load('run\uFFFD'))?.run.status).toBe('running');
      expect((await store.load('json-ok'))?.run.status).toBe('running');
    });

    it('appends to a run whose id has a lone surrogate take one statement each (no stale-writer reload)', async () => {
      let statements = 0;
      const db: PgQueryable = {
        query: (text, values) => {
          statements++;
          return database.db.query(text, values);
        },
      };
      const store = await sqlRunStore(db, { schema });
      await store.create(newRun('lone\uD800'));
      const before = statements;
      for (let i = 0; i < 5; i++) await store.append('lone\uD800', events('lone\uD800', i, i + 1));
      expect(statements - before).toBe(5);
      expect((await store.load('lone\uFFFD'))?.run.eventCount).toBe(5);
    });

    it('a failed statement fails every run it carried, and the next statement goes on', async () => {
      const { db, failNext } = counting();
      const store = await sqlRunStore(db, { schema });
      failNext();
      const failed = await Promise.allSettled([
        store.create(newRun('lost-1')),
        store.create(newRun('lost-2')),
      ]);
      expect(failed.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(String((failed[0] as PromiseRejectedResult).reason)).toMatch(/connection lost/);
      expect(await store.load('lost-1')).toBeUndefined();
      await store.create(newRun('lost-1')); // nothing was made: the id is free
      await store.append('lost-1', events('lost-1', 0, 2));
      expect((await store.load('lost-1'))?.events).toEqual(events('lost-1', 0, 2));
    });
  });
}
