import type { PgQueryable } from './pg-blob-store.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

async function installedIn(db: PgQueryable): Promise<string | undefined> {
  const { rows } = await db.query(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'pg_trgm'`,
  );
  const schema = rows[0]?.schema;
  return typeof schema === 'string' ? schema : undefined;
}

/**
 * Makes sure `pg_trgm` is installed and returns the schema its functions live in, so callers
 * can qualify them: a connection whose `search_path` is one app schema (the kitchen's per-schema
 * tests, a multi-tenant deployment) still finds them. It is created in `preferred` (default
 * `public`), never in an app schema, which dropping would take the extension with it.
 * PGlite must have been created with the `pg_trgm` contrib extension loaded.
 */
export async function ensurePgTrgm(db: PgQueryable, preferred = 'public'): Promise<string> {
  if (!IDENTIFIER.test(preferred))
    throw new TypeError(`ensurePgTrgm: schema ${preferred} is not a plain identifier`);
  const found = await installedIn(db);
  if (found !== undefined) return checked(found);
  try {
    await db.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA ${preferred}`);
  } catch (error) {
    // Two connections creating it at once: one wins, the other sees a duplicate. Anything else is real.
    if ((await installedIn(db)) === undefined) throw error;
  }
  const schema = await installedIn(db);
  if (schema === undefined) throw new Error('pg_trgm is not installed after CREATE EXTENSION');
  return checked(schema);
}

function checked(schema: string): string {
  if (!IDENTIFIER.test(schema))
    throw new Error(`pg_trgm lives in schema ${JSON.stringify(schema)}, not a plain identifier`);
  return schema;
}
