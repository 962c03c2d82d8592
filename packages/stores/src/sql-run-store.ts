import {
  isPausedStatus,
  statusAfter,
  type JsonValue,
  type LoadedRun,
  type NewStoredRun,
  type RunEvent,
  type RunStore,
  type StoredRun,
  type StoredRunStatus,
} from 'reins';
import { appendBatcher } from './append-batcher.js';
import { RunCodec } from './codec/index.js';
import { createBatcher, createJob } from './create-batcher.js';
import type { PgQueryable } from './pg-blob-store.js';
import { sqlNames, type SqlStoreOptions } from './sql-names.js';
import { createRacing, ensureRunTables, UNFINISHED } from './sql-schema.js';
import { SqlPromptTexts } from './sql-prompt-texts.js';
import { localCodecHost, type CodecHost } from './codec-host.js';
import { threadCodecHost } from './codec-thread.js';

export interface SqlRunStoreOptions extends SqlStoreOptions {
  /** How many runs' codec states to keep between appends (default 10 000). */
  readonly maxWriterStates?: number;
  /**
   * Encode events in a worker thread (default `false`): the event loop then only sends each
   * event's JSON form there. Worth it where the event loop is what runs out and a core has time
   * to spare (the kitchen turns it on: docs/performance.md).
   */
  readonly codecThread?: boolean;
}

/**
 * A run store in SQL. `close` waits for the appends already made to be written (a run's last
 * events at shutdown), then ends its codec thread, if it has one; appends and creates after it
 * are refused.
 */
export interface SqlRunStore extends RunStore {
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

const RUN_COLUMNS =
  'run_id, owner_id, agent, conversation_id, request, status, created_at, updated_at, event_count';

function storedRun(row: Row): StoredRun {
  const conversationId = row['conversation_id'];
  return {
    runId: String(row['run_id']),
    ownerId: String(row['owner_id']),
    agent: String(row['agent']),
    ...(typeof conversationId === 'string' ? { conversationId } : {}),
    request: row['request'] as { readonly [key: string]: JsonValue },
    createdAt: Number(row['created_at']),
    status: String(row['status']) as StoredRunStatus,
    updatedAt: Number(row['updated_at']),
    eventCount: Number(row['event_count']),
  };
}

const unfinished = (status: StoredRunStatus): boolean => status === 'running' || isPausedStatus(status);

/**
 * Runs in PostgreSQL (a `pg` Pool, or PGlite embedded): a row per run and a row per event,
 * each event's body delta-encoded by the run codec (`RunCodec`). Every write is one
 * statement, so a batch is atomic on one connection as on a pool: the events of an append and
 * the run row's count, status and time go in together, guarded by the count the writer
 * expects (a gap or a stale writer stores nothing). New runs, and appends of many runs, made
 * while the statement before is being written share one (`GroupCommit`); a run's appends are
 * written in the order they were called, each after the one before.
 */
export async function sqlRunStore(db: PgQueryable, options: SqlRunStoreOptions = {}): Promise<SqlRunStore> {
  const names = sqlNames(options, 'sqlRunStore');
  await createRacing(() => ensureRunTables(db, names));
  const runs = names.table('runs');
  const events = names.table('run_events');
  const batcher = appendBatcher(db, runs, events);
  const creator = createBatcher(db, runs);
  /** Kept prompts' system messages, stored once by hash instead of in every run (`PromptTexts`). */
  const texts = new SqlPromptTexts(db, names.table('run_texts'));
  const maxStates = options.maxWriterStates ?? 10_000;
  if (!Number.isSafeInteger(maxStates) || maxStates < 1)
    throw new RangeError(`maxWriterStates must be a whole number ≥ 1, got ${maxStates}`);
  /** The codec state of each run being written (delta encoding needs what came before). */
  const writers: CodecHost =
    options.codecThread === true ? threadCodecHost(texts, maxStates) : localCodecHost(texts, maxStates);
  /** Each run's last append: the next one starts after it (encoding needs what it wrote). */
  const tails = new Map<string, Promise<void>>();
  let closed = false;
  const refuseClosed = (runId: string): void => {
    if (closed) throw new Error(`run ${runId}: the run store is closed`);
  };

  /** The run's row and events, read in one statement (one snapshot). */
  async function read(
    runId: string,
  ): Promise<{ run: StoredRun; bodies: { seq: number; body: string }[] } | undefined> {
    const { rows } = await db.query(
      `SELECT 0 AS part, ${RUN_COLUMNS}, NULL::integer AS seq, NULL::text AS body FROM ${runs} WHERE run_id = $1
       UNION ALL
       SELECT 1, NULL, NULL, NULL, NULL, NULL::jsonb, NULL, NULL::float8, NULL::float8, NULL::integer, seq, body
       FROM ${events} WHERE run_id = $1
       ORDER BY part, seq`,
      [runId],
    );
    const [head, ...rest] = rows;
    if (head === undefined || Number(head['part']) !== 0) return undefined;
    const bodies = rest.map((row) => ({ seq: Number(row['seq']), body: String(row['body']) }));
    await texts.fetchFor(bodies.map(({ body }) => body));
    return { run: storedRun(head), bodies };
  }

  /** A run's stored rows decoded: its events, and the codec state they leave (to go on writing it). */
  function decodeStored(
    runId: string,
    bodies: readonly { seq: number; body: string }[],
  ): { codec: RunCodec; events: RunEvent[]; bodies: string[] } {
    const codec = new RunCodec(texts);
    const decoded = bodies.map(({ seq, body }) => codec.decode(body, runId, seq));
    return { codec, events: decoded, bodies: bodies.map(({ body }) => body) };
  }

  /** How many events the run's row says are stored (-1: no such run). */
  async function storedCount(runId: string): Promise<number> {
    const { rows } = await db.query(`SELECT event_count FROM ${runs} WHERE run_id = $1`, [runId]);
    const row = rows[0];
    return row === undefined ? -1 : Number(row['event_count']);
  }

  /** A codec state from the stored rows (a run this store did not write, or wrote before a restart). */
  async function rebuild(runId: string): Promise<{ codec: RunCodec; bodies: string[] }> {
    const stored = await read(runId);
    if (stored === undefined) throw new Error(`run ${runId} does not exist`);
    return decodeStored(runId, stored.bodies);
  }

  async function write(runId: string, batch: readonly RunEvent[], retried: boolean): Promise<void> {
    const cached = writers.count(runId);
    const rebuilt = cached === undefined ? await rebuild(runId) : undefined;
    const expected = rebuilt === undefined ? (cached ?? 0) : rebuilt.codec.count;
    const fresh = batch.filter((e) => e.seq >= expected);
    if (fresh.length === 0) {
      // Nothing to write, by this process's state: the rows must still hold it (a run deleted
      // by another process, or rewound, is not "stored" for a batch retried against it).
      if (cached !== undefined && (await storedCount(runId)) < cached) {
        writers.drop(runId);
        return write(runId, batch, retried);
      }
      return;
    }
    if (rebuilt !== undefined) writers.resume(runId, rebuilt.codec, rebuilt.bodies);
    if (cached !== undefined && fresh[0]?.seq !== expected) {
      // The run went on in another process since this one wrote it (shared mode: another
      // worker held it): the state is stale, not the batch. Read it again from the rows.
      writers.drop(runId);
      return write(runId, batch, retried);
    }
    fresh.forEach((event, i) => {
      if (event.seq !== expected + i)
        throw new RangeError(`run ${runId}: event seq ${event.seq} leaves a gap after ${expected + i - 1}`);
    });
    const last = fresh[fresh.length - 1] as RunEvent;
    let inserted: number;
    try {
      const { bodies, usedTexts } = await writers.encode(runId, fresh);
      const storing = texts.store(usedTexts); // undefined: written already (no extra turn)
      if (storing !== undefined) await storing;
      inserted = await batcher.submit({
        runId,
        expected,
        seqs: fresh.map((e) => e.seq),
        bodies,
        status: statusAfter(last),
        updatedAt: last.at,
      });
    } catch (error) {
      writers.drop(runId); // the state ran ahead of the database
      throw error;
    }
    if (inserted === fresh.length) {
      if (!unfinished(statusAfter(last))) writers.drop(runId);
      return;
    }
    // Another writer moved the run on (by design there is one; a retried batch elsewhere is possible).
    writers.drop(runId);
    if (retried) throw new Error(`run ${runId} changed while it was being appended to`);
    await write(runId, batch, true);
  }

  return {
    async create(run: NewStoredRun) {
      refuseClosed(run.runId);
      if (!(await creator.submit(createJob(run)))) throw new Error(`run ${run.runId} exists already`);
      writers.start(run.runId);
    },
    async append(runId, batch) {
      for (const event of batch)
        if (event.runId !== runId) throw new Error(`event of run ${event.runId} appended to ${runId}`);
      refuseClosed(runId);
      const previous = tails.get(runId) ?? Promise.resolve();
      const mine = previous.then(
        () => write(runId, batch, false),
        () => write(runId, batch, false),
      );
      tails.set(runId, mine);
      const settled = () => {
        if (tails.get(runId) === mine) tails.delete(runId);
      };
      mine.then(settled, settled);
      await mine;
    },
    async load(runId): Promise<LoadedRun | undefined> {
      const stored = await read(runId);
      if (stored === undefined) return undefined;
      const { codec, events: decoded, bodies } = decodeStored(runId, stored.bodies);
      // A run that will go on (resumed after a restart) keeps the state it was read with.
      if (writers.keepsLoaded && unfinished(stored.run.status) && codec.count === stored.run.eventCount)
        writers.resume(runId, codec, bodies);
      return { run: stored.run, events: decoded };
    },
    async unfinished() {
      const { rows } = await db.query(
        `SELECT ${RUN_COLUMNS} FROM ${runs} WHERE status IN ${UNFINISHED} ORDER BY created_at, run_id`,
      );
      return rows.map(storedRun);
    },
    async sweep(endedBefore) {
      const { rows } = await db.query(
        `DELETE FROM ${runs} WHERE status NOT IN ${UNFINISHED} AND updated_at < $1 RETURNING run_id`,
        [endedBefore],
      );
      for (const row of rows) writers.drop(String(row['run_id']));
      // Then the texts no remaining run can refer to (`SqlPromptTexts.sweepTexts`).
      await texts.sweepTexts(runs);
      return rows.length;
    },
    async deleteConversation(conversationId, ownerId) {
      const { rows } = await db.query(
        `DELETE FROM ${runs} WHERE conversation_id = $1 AND owner_id = $2 RETURNING run_id`,
        [conversationId, ownerId],
      );
      for (const row of rows) writers.drop(String(row['run_id']));
      return rows.length;
    },
    async close() {
      closed = true;
      // Each run's tail is its last append, chained after the ones before: once none is left,
      // everything appended before `close` is written (or has failed, to its caller).
      while (tails.size > 0) await Promise.allSettled([...tails.values()]);
      await writers.close();
    },
  };
}
