// @ts-check
/**
 * The bench's database, before the server starts (PGlite allows one process per data
 * directory): migrated, the demo households seeded, and `users` more users, each a member of
 * one of them (so the assistant has a fridge, recipes and plans to read). Users and memberships
 * go in by SQL in one transaction, all with one password hash of a low scrypt cost
 * (N=1024, the parameters travel with the hash): 500 logins then take a second instead of
 * half a minute, and logging in is not what this bench measures.
 */
import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { openStorage, seedDemo } from '@reins/kitchen';

export const PASSWORD = 'kitchen-load-password';

/** @param {string} password */
function cheapHash(password) {
  const cost = { N: 1024, r: 8, p: 1 };
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 64, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/**
 * @param {import('@reins/kitchen').StorageOptions} storage
 * @param {number} users
 * @returns {Promise<string[]>} the usernames
 */
export async function prepareDatabase(storage, users) {
  const db = await openStorage(storage);
  try {
    await seedDemo({ db });
    const households = (await db.query('SELECT id FROM households ORDER BY name')).map(
      (/** @type {any} */ row) => /** @type {string} */ (row.id),
    );
    if (households.length === 0) throw new Error('the demo seed made no household');
    const hash = cheapHash(PASSWORD);
    const now = new Date().toISOString();
    const names = Array.from({ length: users }, (_, i) => `load${String(i).padStart(4, '0')}`);
    await db.transaction(async (tx) => {
      for (let from = 0; from < names.length; from += 100) {
        const batch = names.slice(from, from + 100).map((name) => ({ id: randomUUID(), name }));
        await tx.query(
          `INSERT INTO users (id, username, display_name, password_hash, created_at) VALUES ${batch
            .map((_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 2}, $${i * 3 + 3}, '${now}')`)
            .join(', ')}`,
          batch.flatMap((u) => [u.id, u.name, hash]),
        );
        await tx.query(
          `INSERT INTO memberships (household_id, user_id, role, joined_at) VALUES ${batch
            .map((_, i) => `($${i * 2 + 1}, $${i * 2 + 2}, 'member', '${now}')`)
            .join(', ')}`,
          batch.flatMap((u, i) => [households[(from + i) % households.length], u.id]),
        );
      }
    });
    return names;
  } finally {
    await db.close();
  }
}
