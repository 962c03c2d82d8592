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

/**
 * How long a membership found for one principal object is reused by the calls made with that
 * same object: the tool calls of one agent run (its `ctx.principal`), the service calls of one
 * REST request. A new request or run is a new object, checked again; a member removed while a
 * run is under way loses its reads within this long.
 */
export const MEMBERSHIP_REUSE_MS = 1_000;

const found = new WeakMap<KitchenPrincipal, { readonly access: Access; readonly at: number }>();

/**
 * Membership check: every household-scoped operation starts here. A run's tools made one each
 * (3.4 statements of ~16 per demo run); the same principal object now reuses a success for
 * `MEMBERSHIP_REUSE_MS` (a refusal is never reused).
 */
export async function requireMember(
  q: Queryable,
  principal: KitchenPrincipal,
  now: () => number = Date.now,
): Promise<Access> {
  if (principal.householdId === null) throw denied('no active household: choose one first');
  const known = found.get(principal);
  if (known !== undefined && now() - known.at < MEMBERSHIP_REUSE_MS) return known.access;
  const at = now();
  const rows = await q.query<{ role: Role }>(
    'SELECT role FROM memberships WHERE household_id = $1 AND user_id = $2',
    [principal.householdId, principal.userId],
  );
  const role = rows[0]?.role;
  if (role === undefined) {
    found.delete(principal);
    throw denied('not a member of the active household');
  }
  const access = { householdId: principal.householdId, userId: principal.userId, role };
  found.set(principal, { access, at });
  return access;
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

const kitchenOf = new WeakMap<Principal, KitchenPrincipal>();

/**
 * The inverse, for agent tools: reads only the server-written principal, never tool input. The
 * same object for the same Reins principal (one run's tool calls share its membership check).
 */
export function fromReinsPrincipal(principal: Principal): KitchenPrincipal {
  const known = kitchenOf.get(principal);
  const householdId = principal.claims?.['householdId'];
  const wanted = typeof householdId === 'string' ? householdId : null;
  if (known !== undefined && known.userId === principal.id && known.householdId === wanted) return known;
  const made: KitchenPrincipal = { userId: principal.id, householdId: wanted };
  kitchenOf.set(principal, made);
  return made;
}
