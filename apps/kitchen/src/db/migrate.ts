import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

/** `apps/kitchen/migrations`, from `src/db/` (tests) and from `dist/db/` (built) alike. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const FILE = /^(\d{3,})_([\w-]+)\.sql$/;

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE.exec(file);
    if (match?.[1] === undefined || match[2] === undefined)
      throw new Error(`bad migration file name: ${file}`);
    migrations.push({
      version: Number(match[1]),
      name: match[2],
      sql: await readFile(`${dir}/${file}`, 'utf8'),
    });
  }
  const versions = migrations.map((m) => m.version);
  if (new Set(versions).size !== versions.length) throw new Error('duplicate migration version');
  return migrations;
}

// One key for every kitchen schema: concurrent starters (several API instances, parallel test
// files on one server) apply migrations one at a time; each holds the lock for milliseconds.
const LOCK_KEY = 7_020_001;

/**
 * Applies, in version order, each migration not yet recorded in `kitchen_migrations`, each in
 * its own transaction with its record. Running it again is a no-op. Returns the versions applied.
 */
export async function migrate(db: Db, migrations?: readonly Migration[]): Promise<number[]> {
  const all = migrations ?? (await loadMigrations());
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.exec(
      `CREATE TABLE IF NOT EXISTS kitchen_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  const applied: number[] = [];
  for (const migration of all) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const rows = await tx.query('SELECT 1 FROM kitchen_migrations WHERE version = $1', [migration.version]);
      if (rows.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO kitchen_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
