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
  if (role === undefined) throw denied('not a member of the active household');
  return { householdId: principal.householdId, userId: principal.userId, role };
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
