import type { PgQueryable } from './pg-blob-store.js';
import type { SqlNames } from './sql-names.js';

/** The version of each component's tables, recorded in the `schema` table from the first version on. */
const VERSIONS = { runs: 1, conversations: 1 } as const;

// PostgreSQL's answers when two processes create the same table or index at the same moment
// (`IF NOT EXISTS` is not atomic across sessions): unique_violation, duplicate_table, duplicate_object,
// duplicate_schema.
const CREATE_RACE = new Set(['23505', '42P07', '42710', '42P06']);

/** Waits a little longer after each lost race, spread at random so racing instances fall apart. */
function pauseAfterLosing(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 40));
}

/**
 * Creates tables as instances start — several at once in the shared mode: a creation that lost
 * the race to another instance is tried again (it then finds what the winner made). Each lost
 * race means another instance made progress, but an instance can lose once per table, index and
 * type it creates (four processes starting together lost three times in a row in CI), so the
 * default allows ten tries.
 */
export async function createRacing(
  create: () => Promise<void>,
  attempts = 10,
  pause: (attempt: number) => Promise<void> = pauseAfterLosing,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= attempts || typeof code !== 'string' || !CREATE_RACE.has(code)) throw error;
      await pause(attempt);
    }
  }
}

async function run(db: PgQueryable, statements: readonly string[]): Promise<void> {
  // One statement per call: PGlite's parameterised `query` takes one, and so does every driver.
  for (const statement of statements) await db.query(statement);
}

/**
 * Records (once) and checks the version of a component's tables: a database written by a
 * newer version of the stores is refused, never written in an older layout.
 */
async function versioned(db: PgQueryable, names: SqlNames, component: keyof typeof VERSIONS): Promise<void> {
  const table = names.table('schema');
  await db.query(
    `CREATE TABLE IF NOT EXISTS ${table} (component text PRIMARY KEY, version integer NOT NULL)`,
  );
  await db.query(
    `INSERT INTO ${table} (component, version) VALUES ($1, $2) ON CONFLICT (component) DO NOTHING`,
    [component, VERSIONS[component]],
  );
  const { rows } = await db.query(`SELECT version FROM ${table} WHERE component = $1`, [component]);
  const version = rows[0]?.['version'];
  if (version !== VERSIONS[component])
    throw new Error(
      `${table}: ${component} tables are at version ${String(version)}; this build knows ${VERSIONS[component]}`,
    );
}

/** Statuses that are not an end: a run in them is resumed or rebuilt after a restart. */
export const UNFINISHED = `('running', 'awaiting_approval', 'awaiting_input')`;

/** The runs and their event logs (times are epoch-ms doubles: exact, as the events have them). */
export async function ensureRunTables(db: PgQueryable, names: SqlNames): Promise<void> {
  const runs = names.table('runs');
  const events = names.table('run_events');
  const texts = names.table('run_texts');
  await versioned(db, names, 'runs');
  await run(db, [
    `CREATE TABLE IF NOT EXISTS ${runs} (
       run_id text PRIMARY KEY,
       owner_id text NOT NULL,
       agent text NOT NULL,
       conversation_id text,
       request jsonb NOT NULL,
       status text NOT NULL,
       created_at double precision NOT NULL,
       updated_at double precision NOT NULL,
       event_count integer NOT NULL DEFAULT 0
     )`,
    `CREATE INDEX IF NOT EXISTS ${names.index('runs_unfinished')} ON ${runs} (created_at) WHERE status IN ${UNFINISHED}`,
    `CREATE INDEX IF NOT EXISTS ${names.index('runs_ended')} ON ${runs} (updated_at) WHERE status NOT IN ${UNFINISHED}`,
    `CREATE INDEX IF NOT EXISTS ${names.index('runs_conversation')} ON ${runs} (conversation_id, owner_id)`,
    // The body is the codec's text (not jsonb): decoding depends on its key order, which jsonb does not keep.
    `CREATE TABLE IF NOT EXISTS ${events} (
       run_id text NOT NULL REFERENCES ${runs} (run_id) ON DELETE CASCADE,
       seq integer NOT NULL,
       body text NOT NULL,
       bytes integer NOT NULL,
       PRIMARY KEY (run_id, seq)
     )`,
    // Texts the bodies refer to by hash (codec version 2: kept prompts' system messages met in
    // more than one run), as their JSON string; swept with the runs (`SqlPromptTexts`). Added
    // within version 1 of the tables: a build without it refuses those bodies by their codec
    // version.
    `CREATE TABLE IF NOT EXISTS ${texts} (
       hash text PRIMARY KEY,
       text_json text NOT NULL,
       used_at double precision NOT NULL
     )`,
  ]);
}

/**
 * Conversations and their turns. An expired conversation that gets a turn starts afresh: its
 * `generation` moves on and only the turns of the current generation are its turns.
 */
export async function ensureConversationTables(db: PgQueryable, names: SqlNames): Promise<void> {
  const conversations = names.table('conversations');
  const turns = names.table('conversation_turns');
  await versioned(db, names, 'conversations');
  await run(db, [
    `CREATE TABLE IF NOT EXISTS ${conversations} (
       conversation_id text PRIMARY KEY,
       owner_id text NOT NULL,
       title text NOT NULL,
       generation integer NOT NULL DEFAULT 0,
       created_at double precision NOT NULL,
       updated_at double precision NOT NULL,
       expires_at double precision NOT NULL
     )`,
    `CREATE INDEX IF NOT EXISTS ${names.index('conversations_owner')} ON ${conversations} (owner_id, updated_at DESC)`,
    `CREATE INDEX IF NOT EXISTS ${names.index('conversations_expiry')} ON ${conversations} (expires_at)`,
    `CREATE TABLE IF NOT EXISTS ${turns} (
       conversation_id text NOT NULL REFERENCES ${conversations} (conversation_id) ON DELETE CASCADE,
       generation integer NOT NULL,
       run_id text NOT NULL,
       turn_order bigserial,
       query text NOT NULL,
       answer text,
       status text NOT NULL,
       about jsonb,
       answer_data jsonb,
       at double precision NOT NULL,
       PRIMARY KEY (conversation_id, generation, run_id)
     )`,
    // Added in version 1 after its first release: an optional column, NULL on older rows (which
    // older builds write without it), so the tables stay at version 1.
    `ALTER TABLE ${turns} ADD COLUMN IF NOT EXISTS answer_data jsonb`,
  ]);
}
