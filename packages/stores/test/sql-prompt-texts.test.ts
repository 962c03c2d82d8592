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
  it('writes a long system message as a reference in a version-2 body and reads it back exactly', () => {
    const texts = new PromptTexts();
    const used = new Map<string, string>();
    const body = new RunCodec(texts).encode(reason('c-1', 0, SYSTEM), used);
    expect(JSON.parse(body).v).toBe(CODEC_VERSION_WITH_TEXTS);
    expect(body).not.toContain('Tools: fridge_items');
    expect([...used.values()]).toEqual([SYSTEM]);
    expect(new RunCodec(texts).decode(body, 'c-1', 0)).toEqual(reason('c-1', 0, SYSTEM));
  });

  it('keeps a short system message in the body, and one that looks like a reference exact', () => {
    const texts = new PromptTexts();
    const short = reason('c-2', 0, 'Be brief.');
    const shortBody = new RunCodec(texts).encode(short);
    expect(JSON.parse(shortBody).v).toBe(1);
    const lookalike = reason('c-3', 0, `\u0000reins-text:${'0'.repeat(64)}`);
    const body = new RunCodec(texts).encode(lookalike);
    expect(new RunCodec(texts).decode(body, 'c-3', 0)).toEqual(lookalike);
  });

  it('refuses a body with a reference without texts to read it from (codec version), and an unknown reference', () => {
    const body = new RunCodec(new PromptTexts()).encode(reason('c-4', 0, SYSTEM));
    const refused = (() => {
      try {
        new RunCodec().decode(body, 'c-4', 0);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(StoredEventError);
    expect((refused as StoredEventError).code).toBe('CODEC_VERSION');
    expect(() => new RunCodec(new PromptTexts()).decode(body, 'c-4', 0)).toThrow(/not found/);
  });
});

for (const [name, openDatabase] of [
  ['PGlite', openPglite],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`sqlRunStore keeps each system prompt once, on ${name}`, () => {
    let database: TestDatabase;
    let schema: string;
    beforeAll(async () => {
      database = await openDatabase();
      schema = (await database.fresh()).schema;
    }, 30_000);
    afterAll(async () => {
      await database.close();
    });

    it('stores two runs’ system prompts as two rows, not in the bodies; a fresh process reads them back exactly', async () => {
      const statements: string[] = [];
      const counting: PgQueryable = {
        query: (text, values) => {
          statements.push(text);
          return database.db.query(text, values);
        },
      };
      const store = await sqlRunStore(counting, { schema });
      for (const runId of ['t-1', 't-2']) {
        await store.create(newRun(runId));
        await store.append(runId, [reason(runId, 0, SYSTEM), reason(runId, 1, LAST_STEP)]);
      }
      // Each text is written once by this process, however many runs send it.
      expect(statements.filter((s) => s.includes('run_texts') && s.startsWith('INSERT'))).toHaveLength(2);
      const { rows } = await database.db.query(`SELECT text FROM ${schema}.reins_run_texts ORDER BY text`);
      expect(rows.map((r) => r['text'])).toEqual([SYSTEM, LAST_STEP].sort());
      const { rows: bodies } = await database.db.query(`SELECT body FROM ${schema}.reins_run_events`);
      for (const row of bodies) expect(String(row['body'])).not.toContain('Tools: fridge_items');

      const restarted = await sqlRunStore(database.db, { schema });
      const loaded = await restarted.load('t-2');
      expect(loaded?.events).toEqual([reason('t-2', 0, SYSTEM), reason('t-2', 1, LAST_STEP)]);
      // The restarted process goes on writing the run against the state it read.
      await restarted.append('t-2', [reason('t-2', 2, SYSTEM)]);
      const again = await (await sqlRunStore(database.db, { schema })).load('t-2');
      expect(again?.events.at(-1)).toEqual(reason('t-2', 2, SYSTEM));
    });

    it('a run whose text row is gone does not load, with a code (nothing is shown in its place)', async () => {
      const { schema: own } = await database.fresh();
      const store = await sqlRunStore(database.db, { schema: own });
      await store.create(newRun('gone-1'));
      await store.append('gone-1', [reason('gone-1', 0, SYSTEM)]);
      await database.db.query(`DELETE FROM ${own}.reins_run_texts`);
      const fresh = await sqlRunStore(database.db, { schema: own });
      await expect(fresh.load('gone-1')).rejects.toMatchObject({ code: 'MALFORMED' });
    });
  });
}
