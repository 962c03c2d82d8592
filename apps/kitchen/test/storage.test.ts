import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { openStorage } from '../src/db/open-db.js';
import { seedDemo } from '../src/seed/seed.js';
import { createKitchenServices } from '../src/services/kitchen-services.js';
import { describeEachBackend, START } from './harness.js';

describeEachBackend('storage', (harness) => {
  it('migrations are recorded and applying them again changes nothing', async () => {
    const h = harness();
    const versions = (await loadMigrations()).map((m) => m.version);
    const recorded = await h.db.query<{ version: number }>(
      'SELECT version FROM kitchen_migrations ORDER BY version',
    );
    expect(recorded.map((r) => r.version)).toEqual(versions);
    expect(await migrate(h.db)).toEqual([]);
  });

  it('a later migration is applied once, in order, after the recorded ones', async () => {
    const h = harness();
    const extra = {
      version: 999,
      name: 'probe',
      sql: 'CREATE TABLE probe_999 (x int); INSERT INTO probe_999 VALUES (1);',
    };
    const all = [...(await loadMigrations()), extra];
    expect(await migrate(h.db, all)).toEqual([999]);
    expect(await migrate(h.db, all)).toEqual([]);
    expect(await h.db.query('SELECT x FROM probe_999')).toEqual([{ x: 1 }]);
  });

  it('a failed transaction leaves nothing behind', async () => {
    const h = harness();
    await expect(
      h.db.transaction(async (tx) => {
        await tx.query("INSERT INTO kitchen_meta (key, value) VALUES ('rollback-probe', 'x')");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await h.db.query("SELECT 1 FROM kitchen_meta WHERE key = 'rollback-probe'")).toEqual([]);
  });

  it('the demo seed is applied once: a second call does nothing', async () => {
    const h = harness();
    const count = async () =>
      (await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM recipes'))[0]?.n;
    const before = await count();
    expect(await seedDemo({ db: h.db, clock: () => START })).toBe(false);
    expect(await count()).toBe(before);
    const households = await h.db.query<{ name: string }>(
      'SELECT name FROM households ORDER BY name COLLATE "C"',
    );
    expect(households.map((x) => x.name)).toEqual(expect.arrayContaining(['小贾家', '老王家']));
  });
});

describe('the embedded default keeps its data across restarts', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('close PGlite, reopen the same directory: rows are there and the seed is not applied twice', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kitchen-restart-'));
    dirs.push(dataDir);
    const first = await openStorage({ dataDir });
    expect(await seedDemo({ db: first })).toBe(true);
    const services = createKitchenServices({ db: first });
    const { session } = await services.auth.login({ username: 'xiaojia', password: 'demo-xiaojia' });
    const item = await services.fridge.create(session.principal, {
      name: '重启后的鸡蛋',
      quantity: 12,
      unit: '个',
    });
    const counts = async (db: typeof first) =>
      db.query<{ users: number; recipes: number }>(
        'SELECT (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM recipes) AS recipes',
      );
    const before = await counts(first);
    await first.close();

    const second = await openStorage({ dataDir });
    try {
      expect(await seedDemo({ db: second })).toBe(false);
      expect(await counts(second)).toEqual(before);
      const again = createKitchenServices({ db: second });
      expect(await again.fridge.get(session.principal, item.id)).toMatchObject({
        name: '重启后的鸡蛋',
        quantity: 12,
      });
    } finally {
      await second.close();
    }
  }, 60_000);
});
