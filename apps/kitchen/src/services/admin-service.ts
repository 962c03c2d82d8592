import { z } from 'zod';
import { hashPassword } from '../auth/password.js';
import { conflict, notFound } from '../domain/errors.js';
import { householdInput, newUserInput, passwordSchema, roleInput } from '../domain/schemas.js';
import type { Member, Role, User } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import type { ServiceEnv } from './env.js';
import { addMembership, insertHousehold, membersOf, userIdByName } from './membership-store.js';

export interface HouseholdOverview {
  readonly id: string;
  readonly name: string;
  readonly members: readonly Member[];
}

/**
 * Operator actions for the admin CLI: trusted by construction (whoever can run the CLI owns
 * the database), so no principal — but the same membership rules as the household service.
 */
export interface AdminService {
  listHouseholds(): Promise<HouseholdOverview[]>;
  addUser(input: unknown): Promise<User>;
  createHousehold(input: unknown, ownerUsername: string): Promise<HouseholdOverview>;
  /**
   * `household` is an id or an exact name (a name held by several households is refused).
   * Direct, with no invitation (owners invite through `InvitationService`): the operator at the
   * console is trusted, and an unknown username is a plain `NOT_FOUND` to them.
   */
  addMember(household: string, username: string, role?: Role): Promise<HouseholdOverview>;
  /** Sets a new password and ends every session of the user. */
  resetPassword(username: string, password: string): Promise<void>;
}

export function createAdminService(env: ServiceEnv): AdminService {
  const { db } = env;

  async function overview(id: string, name: string): Promise<HouseholdOverview> {
    return { id, name, members: await membersOf(db, id) };
  }

  async function resolveHousehold(ref: string): Promise<{ id: string; name: string }> {
    const rows = await db.query<{ id: string; name: string }>(
      'SELECT id, name FROM households WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC',
      [ref],
    );
    const first = rows[0];
    if (first === undefined) throw notFound('household', 'household');
    if (first.id !== ref && rows.length > 1)
      throw conflict(`several households are named ${ref}: use the id`);
    return first;
  }

  return {
    async listHouseholds() {
      const rows = await db.query<{ id: string; name: string }>(
        'SELECT id, name FROM households ORDER BY created_at, name COLLATE "C"',
      );
      return Promise.all(rows.map((h) => overview(h.id, h.name)));
    },

    async addUser(input) {
      const user = parseInput(newUserInput, input);
      const id = env.newId();
      const hash = await hashPassword(user.password);
      const rows = await db.query(
        `INSERT INTO users (id, username, display_name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (username) DO NOTHING RETURNING id`,
        [id, user.username, user.displayName, hash, env.now().toISOString()],
      );
      if (rows.length === 0) throw conflict('username taken', 'username');
      return { id, username: user.username, displayName: user.displayName };
    },

    async createHousehold(input, ownerUsername) {
      const { name } = parseInput(householdInput, input);
      const id = env.newId();
      await db.transaction(async (tx) => {
        const owner = await userIdByName(tx, ownerUsername);
        await insertHousehold(tx, id, name, env.now());
        await addMembership(tx, id, owner, 'owner', env.now());
      });
      return overview(id, name);
    },

    async addMember(household, username, role = 'member') {
      const target = await resolveHousehold(household);
      parseInput(roleInput, { role });
      await db.transaction(async (tx) =>
        addMembership(tx, target.id, await userIdByName(tx, username), role, env.now()),
      );
      return overview(target.id, target.name);
    },

    async resetPassword(username, password) {
      const checked = parseInput(z.strictObject({ password: passwordSchema }), { password }).password;
      const hash = await hashPassword(checked);
      await db.transaction(async (tx) => {
        const userId = await userIdByName(tx, username);
        await tx.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, hash]);
        await tx.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
      });
    },
  };
}
