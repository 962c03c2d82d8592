import { PromptTexts } from './codec/index.js';
import type { PgQueryable } from './pg-blob-store.js';

/** How often a process refreshes a text's `used_at` while it keeps using it. */
const REFRESH_MS = 3_600_000;
/**
 * A text is swept when no remaining run is older than its last use by this much: its
 * `used_at` lags its last use by at most two refresh periods (a process's own, and the
 * statement's). See `sweepTexts`.
 */
const SWEEP_MARGIN_MS = 3 * REFRESH_MS;

/**
 * The run codec's texts kept in a table (`run_texts`: hash, the text's JSON form, last use):
 * a text is written by whichever instance meets it first, before the first body that refers
 * to it, and its `used_at` refreshed about hourly while runs use it; a body read back has its
 * texts fetched first. Both are remembered by the process, so a run of a known agent costs
 * no statement for them.
 */
export class SqlPromptTexts extends PromptTexts {
  readonly #db: PgQueryable;
  readonly #table: string;
  readonly #now: () => number;
  /** When this process last wrote each text (bounded: forgetting one costs one idempotent upsert). */
  readonly #written = new Map<string, number>();
  readonly #writing = new Map<string, Promise<void>>();

  constructor(db: PgQueryable, table: string, now: () => number = Date.now) {
    super();
    this.#db = db;
    this.#table = table;
    this.#now = now;
  }

  /**
   * Writes the texts of `used` (hash → JSON form, the encoder's `usedTexts`) the table may lack;
   * `undefined` when this process wrote them all lately (no statement, and no turn to wait).
   */
  store(used: ReadonlyMap<string, string>): Promise<void> | undefined {
    const now = this.#now();
    let waits: Promise<void>[] | undefined;
    for (const [hash, json] of used) {
      const written = this.#written.get(hash);
      if (written !== undefined && now - written < REFRESH_MS) continue;
      let writing = this.#writing.get(hash);
      if (writing === undefined) {
        writing = this.#upsert(hash, json, now).finally(() => this.#writing.delete(hash));
        this.#writing.set(hash, writing);
      }
      (waits ??= []).push(writing);
    }
    return waits === undefined ? undefined : Promise.all(waits).then(() => undefined);
  }

  /** Reads the texts `bodies` refer to that this process does not hold. */
  async fetchFor(bodies: readonly string[]): Promise<void> {
    const missing = this.missingIn(bodies);
    if (missing.length === 0) return;
    const { rows } = await this.#db.query(`SELECT hash, text_json FROM ${this.#table} WHERE hash = ANY($1)`, [
      missing,
    ]);
    for (const row of rows) this.hold(String(row['hash']), String(row['text_json']));
  }

  /**
   * Deletes the texts no remaining run can refer to: last used (`used_at`) more than the
   * margin before the oldest run in `runs` was created. A run refers only to texts it used
   * after it was created, and a text's `used_at` lags its last use by less than the margin.
   */
  async sweepTexts(runs: string): Promise<number> {
    const { rows } = await this.#db.query(
      `DELETE FROM ${this.#table}
       WHERE used_at < (SELECT coalesce(min(created_at), $1) FROM ${runs}) - $2
       RETURNING hash`,
      [this.#now(), SWEEP_MARGIN_MS],
    );
    for (const row of rows) this.#written.delete(String(row['hash']));
    return rows.length;
  }

  async #upsert(hash: string, json: string, now: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#table} AS t (hash, text_json, used_at) VALUES ($1, $2, $3)
       ON CONFLICT (hash) DO UPDATE SET used_at = excluded.used_at WHERE t.used_at < excluded.used_at - $4`,
      [hash, json, now, REFRESH_MS],
    );
    if (this.#written.size >= 1024) this.#written.clear();
    this.#written.set(hash, now);
  }
}
