import { conflict, notFound } from '../domain/errors.js';
import type { HouseholdSummary, Member, Role } from '../domain/types.js';
import type { Queryable } from '../db/db.js';
import { sqlTimestamp } from './env.js';

/**
 * Membership SQL shared by the household service (a signed-in owner) and the admin service
 * (the operator): one implementation of the rules, e.g. a household keeps at least one owner.
 */
export async function householdsOf(q: Queryable, userId: string): Promise<HouseholdSummary[]> {
  return q.query<HouseholdSummary>(
    `SELECT h.id, h.name, m.role FROM memberships m JOIN households h ON h.id = m.household_id
     WHERE m.user_id = $1 ORDER BY m.joined_at, h.id`,
    [userId],
  );
}

export async function membersOf(q: Queryable, householdId: string): Promise<Member[]> {
  return q.query<Member>(
    `SELECT u.id AS "userId", u.username, u.display_name AS "displayName", m.role,
            ${sqlTimestamp('m.joined_at')} AS "joinedAt"
     FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.household_id = $1 ORDER BY m.joined_at, u.username`,
    [householdId],
  );
}

export async function insertHousehold(q: Queryable, id: string, name: string, now: Date): Promise<void> {
  await q.query('INSERT INTO households (id, name, created_at) VALUES ($1, $2, $3)', [
    id,
    name,
    now.toISOString(),
  ]);
}

export async function addMembership(
  q: Queryable,
  householdId: string,
  userId: string,
  role: Role,
  now: Date,
): Promise<void> {
  const rows = await q.query(
    `INSERT INTO memberships (household_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (household_id, user_id) DO NOTHING RETURNING user_id`,
    [householdId, userId, role, now.toISOString()],
  );
  if (rows.length === 0) throw conflict('already a member of this household', 'username');
}

interface LockedMember {
  readonly role: Role;
  readonly lastOwner: boolean;
}

async function lockMember(q: Queryable, householdId: string, userId: string): Promise<LockedMember> {
  // Locks every membership row of the household so two owners cannot demote each other at once.
  const rows = await q.query<{ user_id: string; role: Role }>(
    'SELECT user_id, role FROM memberships WHERE household_id = $1 FOR UPDATE',
    [householdId],
  );
  const role = rows.find((r) => r.user_id === userId)?.role;
  if (role === undefined) throw notFound('member', 'userId');
  const owners = rows.filter((r) => r.role === 'owner').length;
  return { role, lastOwner: role === 'owner' && owners === 1 };
}

/** Changes a role; the last owner cannot be demoted. Run inside a transaction. */
export async function setRole(q: Queryable, householdId: string, userId: string, role: Role): Promise<void> {
  const current = await lockMember(q, householdId, userId);
  if (current.lastOwner && role !== 'owner') throw conflict('a household needs at least one owner', 'role');
  await q.query('UPDATE memberships SET role = $3 WHERE household_id = $1 AND user_id = $2', [
    householdId,
    userId,
    role,
  ]);
}

/** Removes a member (run inside a transaction); the last owner cannot leave. Their sessions lose this household. */
export async function removeMembership(q: Queryable, householdId: string, userId: string): Promise<void> {
  const current = await lockMember(q, householdId, userId);
  if (current.lastOwner) throw conflict('a household needs at least one owner', 'userId');
  await q.query('DELETE FROM memberships WHERE household_id = $1 AND user_id = $2', [householdId, userId]);
  await q.query(
    'UPDATE sessions SET active_household_id = NULL WHERE user_id = $1 AND active_household_id = $2',
    [userId, householdId],
  );
}

export async function userIdByName(q: Queryable, username: string): Promise<string> {
  const rows = await q.query<{ id: string }>('SELECT id FROM users WHERE username = $1', [username]);
  const id = rows[0]?.id;
  if (id === undefined) throw notFound('user', 'username');
  return id;
}
