import { PromptTexts } from './codec/index.js';
import type { PgQueryable } from './pg-blob-store.js';

/**
 * The run codec's texts kept in a table (`run_texts`): a text is written once (by whichever
 * instance meets it first), before the first body that refers to it; a body read back has
 * its texts fetched first. Both are remembered by the process, so a run of a known agent
 * costs no statement for them.
 */
export class SqlPromptTexts extends PromptTexts {
  readonly #db: PgQueryable;
  readonly #table: string;
  readonly #now: () => number;
  /** Hashes known to be in the table (bounded: forgetting one costs one idempotent insert). */
  readonly #written = new Set<string>();
  readonly #writing = new Map<string, Promise<void>>();

  constructor(db: PgQueryable, table: string, now: () => number = Date.now) {
    super();
    this.#db = db;
    this.#table = table;
    this.#now = now;
  }

  /** Writes the texts of `used` the table may not have yet (the encoder's `usedTexts`). */
  async store(used: ReadonlyMap<string, string>): Promise<void> {
    if (used.size === 0) return;
    const waits: Promise<void>[] = [];
    for (const [hash, text] of used) {
      if (this.#written.has(hash)) continue;
      let writing = this.#writing.get(hash);
      if (writing === undefined) {
        writing = this.#insert(hash, text).finally(() => this.#writing.delete(hash));
        this.#writing.set(hash, writing);
      }
      waits.push(writing);
    }
    await Promise.all(waits);
  }

  /** Reads the texts `bodies` refer to that this process does not hold. */
  async fetchFor(bodies: readonly string[]): Promise<void> {
    const missing = this.missingIn(bodies);
    if (missing.length === 0) return;
    const { rows } = await this.#db.query(`SELECT hash, text FROM ${this.#table} WHERE hash = ANY($1)`, [
      missing,
    ]);
    for (const row of rows) this.hold(String(row['hash']), String(row['text']));
  }

  async #insert(hash: string, text: string): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#table} (hash, text, created_at) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`,
      [hash, text, this.#now()],
    );
    if (this.#written.size >= 1024) this.#written.clear();
    this.#written.add(hash);
  }
}
