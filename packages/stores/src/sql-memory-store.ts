import { randomUUID } from 'node:crypto';
import {
  cosine,
  memoryTerms,
  memoryText,
  memoryWords,
  rankRecalled,
  scoreMemory,
  tryEmbed,
  TRIGRAM_FLOOR,
  type Embedder,
  type MemoryItem,
  type MemoryStore,
  type RecallOptions,
  type RecalledMemory,
} from 'reins';
import type { PgQueryable } from './pg-blob-store.js';
import { ensurePgTrgm } from './pg-trgm.js';
import { createRacing } from './sql-schema.js';

export interface SqlMemoryStoreOptions {
  /** Embeds memories (stored beside the text) and queries; recall mixes the vectors in. */
  readonly embedder?: Embedder;
  /** Table name, optionally schema-qualified (default `reins_memories`); created when missing. */
  readonly table?: string;
  /** Where `pg_trgm` is created when it is missing (default `public`). */
  readonly extensionSchema?: string;
}

/**
 * A condition the statement that reads decides too, e.g. the caller's membership:
 * `EXISTS (SELECT 1 FROM memberships WHERE household_id = $1 AND user_id = $2)`. Its
 * placeholders are its own (`$1`…`$n` of `params`); write them only as placeholders, never
 * inside a literal. Trusted code writes it, never input.
 */
export interface SqlGuard {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** The SQL memory store, with reads that check an access condition in the same statement. */
export interface SqlMemoryStore extends MemoryStore {
  /**
   * `recall`, with `guard` decided by the one statement that reads: `undefined` when it does
   * not hold (then nothing of the scope is read), so an access check costs no statement of its
   * own. A query with nothing to match still runs the guard. With an embedder the guard goes
   * first, in a statement of its own: the query reaches the embedder only for a caller it lets in.
   */
  recallIf(
    guard: SqlGuard,
    scope: string,
    query: string,
    options?: RecallOptions,
  ): Promise<RecalledMemory[] | undefined>;
}

/** `guard.sql` with its placeholders moved after the statement's first `offset` ones, in parentheses. */
function shiftedGuard(guard: SqlGuard, offset: number): string {
  const used = new Set<number>();
  const sql = guard.sql.replace(/\$(\d+)/g, (_match, digits: string) => {
    const n = Number(digits);
    if (n < 1 || n > guard.params.length)
      throw new RangeError(`sqlMemoryStore: guard placeholder $${digits} has no parameter`);
    used.add(n);
    return `$${n + offset}`;
  });
  if (used.size !== guard.params.length)
    throw new RangeError(
      `sqlMemoryStore: the guard has ${guard.params.length} parameters but uses ${used.size}`,
    );
  return `(\n${sql}\n)`; // on lines of its own: a trailing -- comment ends there
}

const TABLE = /^[a-z_][a-z0-9_]{0,62}(?:\.[a-z_][a-z0-9_]{0,62})?$/;
/** A scope's rows scored per recall at most (newest first); a household has tens. */
const MAX_SCORED_ROWS = 1_000;

const COLUMNS = 'id, scope, content, source, created_at';

function toItem(row: Record<string, unknown>): MemoryItem {
  const { id, scope, content, source, created_at: createdAt } = row;
  if (typeof id !== 'string' || typeof scope !== 'string' || typeof content !== 'string')
    throw new Error('sqlMemoryStore: a row without id, scope or content');
  const stamp = Number(createdAt);
  return {
    id,
    scope,
    text: content,
    createdAt: stamp,
    ...(source === null || source === undefined ? {} : { source: source as MemoryItem['source'] }),
  };
}

/**
 * Memories in PostgreSQL or PGlite (shared mode): one row per memory with its text, the
 * `Intl.Segmenter` words (`segmented`, trigram GIN index), a `tsvector` of its weighted terms
 * (`to_tsvector('simple', …)` over the words and Chinese pieces, GIN index) and the embedding
 * (`real[]`, when an embedder is configured) beside it.
 *
 * Recall asks SQL for the scope's candidates — rows whose tsvector matches a query term
 * (`@@`) or whose words are trigram-similar to one (pg_trgm `word_similarity`, per query term) —
 * with those similarities; with a query vector, every row of the scope (newest 1 000), since a
 * memory may match by meaning alone. Cosine is computed here in JS over those rows (a scope is
 * small: no vector extension needed), and `scoreMemory` — the function the in-memory store
 * uses — mixes the signals into one score, so both stores rank alike.
 */
export async function sqlMemoryStore(
  db: PgQueryable,
  options: SqlMemoryStoreOptions = {},
): Promise<SqlMemoryStore> {
  const table = options.table ?? 'reins_memories';
  if (!TABLE.test(table))
    throw new TypeError(`sqlMemoryStore: table ${JSON.stringify(table)} is not a plain identifier`);
  const bare = table.split('.').pop() as string;
  // Instances starting together race to create the extension, table and indexes: the loser tries again.
  let trgm = '';
  await createRacing(async () => {
    trgm = await ensurePgTrgm(db, options.extensionSchema);
    await db.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
         id text PRIMARY KEY,
         seq bigint GENERATED ALWAYS AS IDENTITY,
         scope text NOT NULL,
         content text NOT NULL,
         segmented text NOT NULL,
         words tsvector NOT NULL,
         embedding real[],
         source jsonb,
         created_at double precision NOT NULL,
         UNIQUE (scope, content)
       )`,
    );
    await db.query(`CREATE INDEX IF NOT EXISTS ${bare}_scope_idx ON ${table} (scope, created_at DESC)`);
    await db.query(`CREATE INDEX IF NOT EXISTS ${bare}_words_idx ON ${table} USING gin (words)`);
    await db.query(
      `CREATE INDEX IF NOT EXISTS ${bare}_trgm_idx ON ${table} USING gin (segmented ${trgm}.gin_trgm_ops)`,
    );
  });

  const find = async (scope: string, content: string): Promise<MemoryItem | undefined> => {
    const { rows } = await db.query(`SELECT ${COLUMNS} FROM ${table} WHERE scope = $1 AND content = $2`, [
      scope,
      content,
    ]);
    return rows[0] === undefined ? undefined : toItem(rows[0]);
  };

  // Per query term (in order): its best word_similarity with the memory's words, 0 below the floor.
  const similarities = `ARRAY(
      SELECT CASE WHEN s.sim >= $4 THEN s.sim ELSE 0 END
      FROM unnest($2::text[]) WITH ORDINALITY AS q(term, n),
           LATERAL (SELECT ${trgm}.word_similarity(q.term, m.segmented) AS sim) s
      ORDER BY q.n)`;

  /** Whether the guard holds, in a statement of its own. */
  async function guardHolds(guard: SqlGuard): Promise<boolean> {
    const { rows } = await db.query(`SELECT ${shiftedGuard(guard, 0)} AS ok`, [...guard.params]);
    return rows[0]?.['ok'] === true;
  }

  /** Recall; with a guard, `undefined` when the guard does not hold (decided by the same statement). */
  async function recallGuarded(
    guard: SqlGuard | undefined,
    scope: string,
    query: string,
    recallOptions: RecallOptions,
  ): Promise<RecalledMemory[] | undefined> {
    const terms = memoryTerms(query);
    // The query goes to the embedder (a provider, maybe paid) only for a caller the guard lets in.
    if (guard !== undefined && options.embedder !== undefined) {
      if (!(await guardHolds(guard))) return undefined;
      guard = undefined;
    }
    const queryVector =
      terms.length === 0 && options.embedder === undefined
        ? undefined
        : await tryEmbed(options.embedder, query);
    if (terms.length === 0 && queryVector === undefined) {
      if (guard === undefined) return [];
      return (await guardHolds(guard)) ? [] : undefined;
    }
    const candidates =
      queryVector === undefined
        ? `AND (m.words @@ to_tsquery('simple', $3)
                OR EXISTS (SELECT 1 FROM unnest($2::text[]) AS q(term)
                           WHERE ${trgm}.word_similarity(q.term, m.segmented) >= $4))`
        : '';
    const read = (condition: string) =>
      `SELECT ${COLUMNS}, m.seq, embedding, ${similarities} AS sims, m.words @@ to_tsquery('simple', $3) AS text_hit
       FROM ${table} m
       WHERE ${condition}m.scope = $1 ${candidates}
       ORDER BY m.created_at DESC, m.seq DESC
       LIMIT ${MAX_SCORED_ROWS}`;
    const params = [scope, terms.map((t) => t.term), terms.map((t) => t.term).join(' | '), TRIGRAM_FLOOR];
    // Guarded: one row with `guard_ok` and no memory when nothing matched, or the guard failed.
    const { rows } =
      guard === undefined
        ? await db.query(read(''), params)
        : await db.query(
            `WITH guard AS (SELECT ${shiftedGuard(guard, params.length)} AS ok)
             SELECT guard.ok AS guard_ok, r.* FROM guard
             LEFT JOIN LATERAL (${read('guard.ok AND ')}) r ON true
             ORDER BY r.created_at DESC, r.seq DESC`,
            [...params, ...guard.params],
          );
    if (guard !== undefined && rows[0]?.['guard_ok'] !== true) return undefined;
    const found: RecalledMemory[] = [];
    for (const row of rows) {
      if (row['id'] === null || row['id'] === undefined) continue; // the guard's row, no memory
      const item = toItem(row);
      const embedding = Array.isArray(row['embedding']) ? (row['embedding'] as number[]) : undefined;
      const sims = Array.isArray(row['sims']) ? (row['sims'] as unknown[]).map(Number) : [];
      const scored = scoreMemory(
        terms,
        memoryTerms(item.text),
        {
          trigramSims: sims,
          vector:
            queryVector === undefined || embedding === undefined ? undefined : cosine(queryVector, embedding),
        },
        queryVector !== undefined,
      );
      if (scored !== undefined) found.push({ ...item, ...scored });
    }
    return rankRecalled(found, recallOptions);
  }

  return {
    async remember(scope, text, source) {
      const content = memoryText(text);
      const existing = await find(scope, content);
      if (existing !== undefined) return existing;
      const vector = await tryEmbed(options.embedder, content);
      const { rows } = await db.query(
        `INSERT INTO ${table} (id, scope, content, segmented, words, embedding, source, created_at)
         VALUES ($1, $2, $3, $4, to_tsvector('simple', $5), $6::real[], $7::jsonb, $8)
         ON CONFLICT (scope, content) DO NOTHING
         RETURNING ${COLUMNS}`,
        [
          randomUUID(),
          scope,
          content,
          memoryWords(content).join(' '),
          memoryTerms(content)
            .map((t) => t.term)
            .join(' '),
          vector ?? null,
          source === undefined ? null : JSON.stringify(source),
          Date.now(),
        ],
      );
      if (rows[0] !== undefined) return toItem(rows[0]);
      const raced = await find(scope, content); // remembered by another call meanwhile
      if (raced === undefined) throw new Error('sqlMemoryStore: insert conflicted but no row is there');
      return raced;
    },

    recall: async (scope, query, recallOptions = {}) =>
      (await recallGuarded(undefined, scope, query, recallOptions)) ?? [],

    recallIf: (guard, scope, query, recallOptions = {}) => recallGuarded(guard, scope, query, recallOptions),

    async list(scope) {
      const { rows } = await db.query(
        `SELECT ${COLUMNS} FROM ${table} WHERE scope = $1 ORDER BY created_at DESC, seq DESC`,
        [scope],
      );
      return rows.map(toItem);
    },

    async forget(scope, id) {
      const { rows } = await db.query(`DELETE FROM ${table} WHERE scope = $1 AND id = $2 RETURNING id`, [
        scope,
        id,
      ]);
      return rows.length > 0;
    },
  };
}
