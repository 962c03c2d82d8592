import type { BlobStore } from 'reins';
import { createRacing } from './sql-schema.js';

/** What the store needs of a `pg` Pool or Client (so tests and apps pass either). */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface PgBlobStoreOptions {
  /** Table name, optionally schema-qualified (default `reins_blobs`); created when missing. */
  readonly table?: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}(?:\.[a-z_][a-z0-9_]{0,62})?$/;

/**
 * Large observations in a PostgreSQL table (shared mode): one row per reference, written with
 * an upsert, read by primary key. Every instance of an app reads what any instance stored.
 * The table is created on first use; the name is checked, values are always parameters.
 */
export async function pgBlobStore(db: PgQueryable, options: PgBlobStoreOptions = {}): Promise<BlobStore> {
  const table = options.table ?? 'reins_blobs';
  if (!IDENTIFIER.test(table))
    throw new TypeError(`pgBlobStore: table ${JSON.stringify(table)} is not a plain identifier`);
  await createRacing(async () => {
    await db.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
         ref text PRIMARY KEY,
         json text NOT NULL,
         bytes integer NOT NULL,
         stored_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  });
  return {
    put: async (ref, json) => {
      await db.query(
        `INSERT INTO ${table} (ref, json, bytes) VALUES ($1, $2, octet_length($2))
         ON CONFLICT (ref) DO UPDATE SET json = EXCLUDED.json, bytes = EXCLUDED.bytes, stored_at = now()`,
        [ref, json],
      );
    },
    get: async (ref) => {
      const { rows } = await db.query(`SELECT json FROM ${table} WHERE ref = $1`, [ref]);
      const json = rows[0]?.json;
      return typeof json === 'string' ? json : undefined;
    },
  };
}
