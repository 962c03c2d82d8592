import type { Principal } from 'reins';
import { denied } from '../domain/errors.js';
import type { Role } from '../domain/types.js';
import type { Queryable } from '../db/db.js';

/**
 * The trusted caller of every service operation: who, and which household they are acting
 * in. Built only by trusted code — the auth layer from a session, the admin CLI, or the agent
 * runtime from its `ctx.principal` — never from request bodies, queries or model output.
 * Holding one is not permission: membership is checked again on every call.
 */
export interface KitchenPrincipal {
  readonly userId: string;
  /** The session's active household; null until the user has one. */
  readonly householdId: string | null;
}

/** The household a call may touch, after the membership check. */
export interface Access {
  readonly householdId: string;
  readonly userId: string;
  readonly role: Role;
}

/** Membership check: every household-scoped operation starts here. */
export async function requireMember(q: Queryable, principal: KitchenPrincipal): Promise<Access> {
  if (principal.householdId === null) throw denied('no active household: choose one first');
  const rows = await q.query<{ role: Role }>(
    'SELECT role FROM memberships WHERE household_id = $1 AND user_id = $2',
    [principal.householdId, principal.userId],
  );
  const role = rows[0]?.role;
  if (role === undefined) throw notMember();
  return { householdId: principal.householdId, userId: principal.userId, role };
}

/**
 * For a hot read whose one statement carries the membership check itself, as
 * `AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $N)`:
 * the household and user to bind. No statement here; a missing household is denied at once.
 * Membership is still decided by the database when the read runs — never cached.
 */
export function memberScope(principal: KitchenPrincipal): { householdId: string; userId: string } {
  if (principal.householdId === null) throw denied('no active household: choose one first');
  return { householdId: principal.householdId, userId: principal.userId };
}

/** What a caller who is not a member of the active household gets, whichever check found it. */
export const notMember = (): Error => denied('not a member of the active household');

/**
 * The membership check as a condition for a store that decides it in the statement that reads
 * (`SqlGuard` of `@reins/stores`): the scope's household and user bound as its own `$1`, `$2`.
 */
export function memberGuard(scope: { householdId: string; userId: string }): {
  sql: string;
  params: [string, string];
} {
  return {
    sql: 'EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $2)',
    params: [scope.householdId, scope.userId],
  };
}

/**
 * After such a read: rows mean the caller was a member when it ran. No rows are either a member's
 * empty result or a non-member's — one more statement (`requireMember`) tells them apart, so a
 * non-member gets exactly the error `requireMember` gives.
 */
export async function confirmMemberRead<T>(
  q: Queryable,
  principal: KitchenPrincipal,
  rows: T[],
): Promise<T[]> {
  if (rows.length === 0) await requireMember(q, principal);
  return rows;
}

export async function requireOwner(q: Queryable, principal: KitchenPrincipal): Promise<Access> {
  const access = await requireMember(q, principal);
  if (access.role !== 'owner') throw denied('only an owner of the household can do this');
  return access;
}

/** The Reins principal an agent run carries: `id` is the user, the household is a trusted claim. */
export function toReinsPrincipal(principal: KitchenPrincipal): Principal {
  return {
    id: principal.userId,
    claims: principal.householdId === null ? {} : { householdId: principal.householdId },
  };
}

/** The inverse, for agent tools: reads only the server-written principal, never tool input. */
export function fromReinsPrincipal(principal: Principal): KitchenPrincipal {
  const householdId = principal.claims?.['householdId'];
  return { userId: principal.id, householdId: typeof householdId === 'string' ? householdId : null };
}
