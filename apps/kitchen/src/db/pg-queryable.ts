import type { PgQueryable } from '@reins/stores';
import type { Db } from './db.js';

/** The kitchen `Db` as the stores' `PgQueryable` (rows wrapped the way `pg` returns them). */
export const pgQueryable = (db: Db): PgQueryable => ({
  query: async (text, values) => ({ rows: await db.query(text, values ?? []) }),
});
