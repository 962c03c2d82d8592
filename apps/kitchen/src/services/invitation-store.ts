import { conflict, expired, notFound } from '../domain/errors.js';
import type {
  HouseholdSummary,
  Invitation,
  InvitationStatus,
  PendingInvitation,
  ReceivedInvitation,
  Role,
} from '../domain/types.js';
import type { Queryable } from '../db/db.js';
import { sqlTimestamp } from './env.js';

/**
 * Invitation SQL. An invitation names a username, never a user id: the rows, and the queries
 * that write them, are the same whether or not someone holds that name. The invitee side
 * joins `users` by the caller's id, so an invitation addressed to another name is not found.
 */

export interface NewInvitation {
  readonly id: string;
  readonly householdId: string;
  readonly username: string;
  readonly role: Role;
  readonly invitedBy: string;
  readonly now: Date;
  readonly expiresAt: Date;
}

/** True when a user of that name is a member of the household (one query, whoever is named). */
export async function isMemberByName(q: Queryable, householdId: string, username: string): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.household_id = $1 AND u.username = $2`,
    [householdId, username],
  );
  return rows.length > 0;
}

/**
 * Creates the pending invitation, or renews the one already pending for this household and
 * username (new role, inviter and expiry; same id). One statement, so two owners inviting the
 * same name at once get one invitation.
 */
export async function upsertInvitation(q: Queryable, inv: NewInvitation): Promise<Invitation> {
  const rows = await q.query<Invitation>(
    `INSERT INTO invitations (id, household_id, username, role, invited_by, status, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7)
     ON CONFLICT (household_id, username) WHERE status = 'pending'
     DO UPDATE SET role = EXCLUDED.role, invited_by = EXCLUDED.invited_by,
                   created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
     RETURNING id, username, role, status, ${sqlTimestamp('expires_at')} AS "expiresAt"`,
    [
      inv.id,
      inv.householdId,
      inv.username,
      inv.role,
      inv.invitedBy,
      inv.now.toISOString(),
      inv.expiresAt.toISOString(),
    ],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('invitation upsert returned no row');
  return row;
}

/** The household's invitations still open (pending and not expired), oldest first. */
export async function pendingOf(q: Queryable, householdId: string, now: Date): Promise<PendingInvitation[]> {
  return q.query<PendingInvitation>(
    `SELECT i.id, i.username, i.role, i.status, ${sqlTimestamp('i.expires_at')} AS "expiresAt",
            ${sqlTimestamp('i.created_at')} AS "createdAt", u.display_name AS "invitedBy"
     FROM invitations i JOIN users u ON u.id = i.invited_by
     WHERE i.household_id = $1 AND i.status = 'pending' AND i.expires_at > $2
     ORDER BY i.created_at, i.username`,
    [householdId, now.toISOString()],
  );
}

/** Withdraws a pending invitation of the household; false when there is none with that id. */
export async function revokeInvitation(
  q: Queryable,
  householdId: string,
  id: string,
  now: Date,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE invitations SET status = 'revoked', answered_at = $3
     WHERE id = $1 AND household_id = $2 AND status = 'pending' RETURNING id`,
    [id, householdId, now.toISOString()],
  );
  return rows.length > 0;
}

interface ReceivedRow {
  id: string;
  householdId: string;
  householdName: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** The open invitations addressed to the user's username, oldest first. */
export async function receivedBy(q: Queryable, userId: string, now: Date): Promise<ReceivedInvitation[]> {
  const rows = await q.query<ReceivedRow>(
    `SELECT i.id, h.id AS "householdId", h.name AS "householdName", i.role,
            inviter.display_name AS "invitedBy", ${sqlTimestamp('i.created_at')} AS "createdAt",
            ${sqlTimestamp('i.expires_at')} AS "expiresAt"
     FROM invitations i
       JOIN users me ON me.username = i.username
       JOIN households h ON h.id = i.household_id
       JOIN users inviter ON inviter.id = i.invited_by
     WHERE me.id = $1 AND i.status = 'pending' AND i.expires_at > $2
     ORDER BY i.created_at, h.name`,
    [userId, now.toISOString()],
  );
  return rows.map(({ householdId, householdName, ...rest }) => ({
    ...rest,
    household: { id: householdId, name: householdName },
  }));
}

/**
 * Answers the caller's own open invitation: one conditional UPDATE, so of two answers at once
 * exactly one finds it pending. Returns its household and role; when nothing was updated,
 * throws what the invitation's state explains (see `explainUnanswerable`).
 */
export async function answerInvitation(
  q: Queryable,
  id: string,
  userId: string,
  answer: 'accepted' | 'declined',
  now: Date,
): Promise<{ householdId: string; role: Role }> {
  const rows = await q.query<{ householdId: string; role: Role }>(
    `UPDATE invitations SET status = $3, answered_at = $4
     WHERE id = $1 AND status = 'pending' AND expires_at > $4
       AND username = (SELECT username FROM users WHERE id = $2)
     RETURNING household_id AS "householdId", role`,
    [id, userId, answer, now.toISOString()],
  );
  const row = rows[0];
  if (row === undefined) return explainUnanswerable(q, id, userId, now);
  return row;
}

/**
 * Why an invitation could not be answered. Another user's invitation and a withdrawn one are
 * 404 `NOT_FOUND`, like an unknown id; one answered already is 409 `CONFLICT`; one past its
 * expiry is 410 `EXPIRED`.
 */
async function explainUnanswerable(q: Queryable, id: string, userId: string, now: Date): Promise<never> {
  const rows = await q.query<{ status: InvitationStatus; expired: boolean }>(
    `SELECT i.status, i.expires_at <= $3 AS expired
     FROM invitations i JOIN users me ON me.username = i.username
     WHERE i.id = $1 AND me.id = $2`,
    [id, userId, now.toISOString()],
  );
  const row = rows[0];
  if (row === undefined || row.status === 'revoked') throw notFound('invitation', 'id');
  if (row.status === 'pending' && row.expired)
    throw expired('this invitation has expired: ask an owner of the household for a new one');
  throw conflict(`this invitation was already ${row.status === 'pending' ? 'answered' : row.status}`, 'id');
}

/**
 * Makes the user a member with the invitation's role; someone who is a member already (added
 * meanwhile, e.g. by the admin CLI) keeps the role they have. Never a second membership.
 */
export async function joinHousehold(
  q: Queryable,
  householdId: string,
  userId: string,
  role: Role,
  now: Date,
): Promise<HouseholdSummary> {
  await q.query(
    `INSERT INTO memberships (household_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (household_id, user_id) DO NOTHING`,
    [householdId, userId, role, now.toISOString()],
  );
  const rows = await q.query<HouseholdSummary>(
    `SELECT h.id, h.name, m.role FROM memberships m JOIN households h ON h.id = m.household_id
     WHERE m.household_id = $1 AND m.user_id = $2`,
    [householdId, userId],
  );
  const joined = rows[0];
  if (joined === undefined) throw new Error('membership missing right after it was written');
  return joined;
}
