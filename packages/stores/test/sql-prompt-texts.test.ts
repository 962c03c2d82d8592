import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import {
  CODEC_VERSION_WITH_TEXTS,
  PromptTexts,
  RunCodec,
  sqlRunStore,
  StoredEventError,
  type PgQueryable,
} from '@reins/stores';
import { openPglite, openPostgres, type TestDatabase } from './sql-store-fixtures.js';

const T0 = 1_796_137_877_768;
const SYSTEM = `You are the kitchen assistant.\n${'Tools: fridge_items, recipes, meal plans. '.repeat(40)}`;
const LAST_STEP = `${SYSTEM}\nThis is the last step: answer now.`;

/** A reason step whose kept prompt holds `system` (whole) and one user message. */
const reason = (runId: string, seq: number, system: string): RunEvent =>
  ({
    type: 'step',
    phase: 'reason',
    index: seq,
    model: 'demo',
    raw: '{"final":"ok"}',
    prompt: {
      parts: [
        { role: 'system', content: system, tokens: 300 },
        { role: 'user', content: `question ${runId}`, tokens: 3 },
      ],
      count: 2,
      tokens: 303,
      tokensFrom: 'estimate',
    },
    runId,
    seq,
    at: T0 + seq,
  }) as unknown as RunEvent;
const newRun = (runId: string) => ({
  runId,
  ownerId: 'o',
  agent: 'kitchen',
  request: { q: '?' },
  createdAt: T0,
});

describe('the run codec with texts stored apart', () => {
  it('keeps a long system message in the body in its first run, and refers to it from the second on (version-2 bodies), read back exactly', () => {
    const texts = new PromptTexts();
    const used = new Map<string, string>();
    const first = new RunCodec(texts).encode(reason('c-1', 0, SYSTEM), used);
    expect(JSON.parse(first).v).toBe(1);
    expect(first).toContain('Tools: fridge_items');
    expect(used.size).toBe(0);
    const second = new RunCodec(texts).encode(reason('c-2', 0, SYSTEM), used);
    expect(JSON.parse(second).v).toBe(CODEC_VERSION_WITH_TEXTS);
    expect(second).not.toContain('Tools: fridge_items');
    expect([...used.values()]).toEqual([JSON.stringify(SYSTEM)]);
    expect(new RunCodec(texts).decode(first, 'c-1', 0)).toEqual(reason('c-1', 0, SYSTEM));
    expect(new RunCodec(texts).decode(second, 'c-2', 0)).toEqual(reason('c-2', 0, SYSTEM));
  });

  it('keeps a text met in one run only in its bodies (a conversation’s context), however often the run sends it', () => {
    const texts = new PromptTexts();
    const codec = new RunCodec(texts);
    const own = `${SYSTEM}\nEarlier in this conversation: 今晚吃什么？`;
    for (const seq of [0, 1, 2]) expect(JSON.parse(codec.encode(reason('c-own', seq, own))).v).toBe(1);
  });

  it('keeps a short system message in the body, and stores one that looks like a reference apart, exactly', () => {
    const texts = new PromptTexts();
    expect(JSON.parse(new RunCodec(texts).encode(reason('c-2', 0, 'Be brief.'))).v).toBe(1);
    const lookalike = reason('c-3', 0, `\u0000reins-text:${'0'.repeat(64)}`);
    const body = new RunCodec(texts).encode(lookalike);
    expect(JSON.parse(body).v).toBe(CODEC_VERSION_WITH_TEXTS);
    expect(new RunCodec(texts).decode(body, 'c-3', 0)).toEqual(lookalike);
  });

  it('refuses a body with a reference without texts to read it from (codec version), and an unknown reference (MALFORMED)', () => {
    const writer = new PromptTexts();
    new RunCodec(writer).encode(reason('c-4', 0, SYSTEM));
    const body = new RunCodec(writer).encode(reason('c-5', 0, SYSTEM));
    const error = (read: () => unknown): unknown => {
      try {
        read();
      } catch (caught) {
        return caught;
      }
    };
    const refused = error(() => new RunCodec().decode(body, 'c-5', 0));
    expect(refused).toBeInstanceOf(StoredEventError);
    expect((refused as StoredEventError).code).toBe('CODEC_VERSION');
    const unknown = error(() => new RunCodec(new PromptTexts()).decode(body, 'c-5', 0));
    expect(unknown).toBeInstanceOf(StoredEventError);
    expect((unknown as StoredEventError).code).toBe('MALFORMED');
  });
});

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlRunStore keeps each shared system prompt once, on ${name}`, () => {
    let database: TestDatabase;
    let schema: string;
    beforeAll(async () => {
      database = await openDatabase();
      schema = (await database.fresh()).schema;
    }, 30_000);
    afterAll(async () => {
      await database.close();
    });

    it('stores the system prompts runs share as one row each, written once; a fresh process reads them back exactly', async () => {
      const statements: string[] = [];
      const counting: PgQueryable = {
        query: (text, values) => {
          statements.push(text);
          return database.db.query(text, values);
        },
      };
      const store = await sqlRunStore(counting, { schema });
      for (const runId of ['t-1', 't-2', 't-3']) {
        await store.create(newRun(runId));
        await store.append(runId, [reason(runId, 0, SYSTEM), reason(runId, 1, LAST_STEP)]);
      }
      // Each text is written once by this process, however many runs send it.
      expect(statements.filter((s) => s.includes('run_texts') && s.includes('INSERT'))).toHaveLength(2);
      const { rows } = await database.db.query(`SELECT text_json FROM ${schema}.reins_run_texts`);
      expect(rows.map((r) => JSON.parse(String(r['text_json']))).sort()).toEqual([SYSTEM, LAST_STEP].sort());
      const { rows: bodies } = await database.db.query(
        `SELECT run_id, body FROM ${schema}.reins_run_events WHERE run_id IN ('t-2', 't-3')`,
      );
      for (const row of bodies) expect(String(row['body'])).not.toContain('Tools: fridge_items');

      const restarted = await sqlRunStore(database.db, { schema });
      const loaded = await restarted.load('t-2');
      expect(loaded?.events).toEqual([reason('t-2', 0, SYSTEM), reason('t-2', 1, LAST_STEP)]);
      // The restarted process goes on writing the run against the state it read.
      await restarted.append('t-2', [reason('t-2', 2, SYSTEM)]);
      const again = await (await sqlRunStore(database.db, { schema })).load('t-2');
      expect(again?.events.at(-1)).toEqual(reason('t-2', 2, SYSTEM));
    });

    it('gives back a shared text with a NUL, a lone surrogate or a reference look-alike exactly (kept as JSON)', async () => {
      const { schema: own } = await database.fresh();
      const odd = [`${SYSTEM}\u0000nul`, `${SYSTEM}\ud83dhalf`, `\u0000reins-text:${'a'.repeat(64)}`];
      const store = await sqlRunStore(database.db, { schema: own });
      for (const runId of ['o-1', 'o-2']) {
        await store.create(newRun(runId));
        await store.append(
          runId,
          odd.map((system, seq) => reason(runId, seq, system)),
        );
      }
      const fresh = await sqlRunStore(database.db, { schema: own });
      for (const runId of ['o-1', 'o-2'])
        expect((await fresh.load(runId))?.events).toEqual(
          odd.map((system, seq) => reason(runId, seq, system)),
        );
    });

    it('a run whose text row is gone does not load, with a code (nothing is shown in its place)', async () => {
      const { schema: own } = await database.fresh();
      const store = await sqlRunStore(database.db, { schema: own });
      for (const runId of ['gone-1', 'gone-2']) {
        await store.create(newRun(runId));
        await store.append(runId, [reason(runId, 0, SYSTEM)]);
      }
      await database.db.query(`DELETE FROM ${own}.reins_run_texts`);
      const fresh = await sqlRunStore(database.db, { schema: own });
      expect((await fresh.load('gone-1'))?.events).toEqual([reason('gone-1', 0, SYSTEM)]); // kept in its body
      await expect(fresh.load('gone-2')).rejects.toMatchObject({ code: 'MALFORMED' });
    });

    it('sweeps a text once no remaining run is older than its last use (with a margin), never one a run may refer to', async () => {
      const { schema: own } = await database.fresh();
      const store = await sqlRunStore(database.db, { schema: own });
      const now = Date.now();
      const hour = 3_600_000;
      for (const runId of ['s-1', 's-2']) {
        await store.create({ ...newRun(runId), createdAt: now });
        await store.append(runId, [reason(runId, 0, SYSTEM)]);
      }
      // Four hours pass without a use; an unfinished run started five hours ago may still refer to it.
      await database.db.query(`UPDATE ${own}.reins_run_texts SET used_at = used_at - $1`, [4 * hour]);
      await store.create({ ...newRun('s-old'), createdAt: now - 5 * hour });
      await database.db.query(`UPDATE ${own}.reins_runs SET status = 'success' WHERE run_id <> 's-old'`);
      const texts = async () =>
        Number(
          (await database.db.query(`SELECT count(*)::int AS n FROM ${own}.reins_run_texts`)).rows[0]?.['n'],
        );
      expect(await store.sweep(now + 1)).toBe(2);
      expect(await texts()).toBe(1);
      await database.db.query(`UPDATE ${own}.reins_runs SET status = 'success'`);
      expect(await store.sweep(now + 1)).toBe(1);
      expect(await texts()).toBe(0);
    });
  });
}
