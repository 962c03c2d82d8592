import { conflict, notFound } from '../domain/errors.js';
import { invitationInput } from '../domain/schemas.js';
import type { HouseholdSummary, Invitation, PendingInvitation, ReceivedInvitation } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import type { ServiceEnv } from './env.js';
import {
  answerInvitation,
  isMemberByName,
  joinHousehold,
  pendingOf,
  receivedBy,
  revokeInvitation,
  upsertInvitation,
} from './invitation-store.js';
import { requireOwner, type KitchenPrincipal } from './principal.js';

/**
 * Membership by invitation (issue 16.10). An owner invites a username; the user who holds it
 * accepts (and becomes a member with the invited role) or declines. Nothing an inviter gets
 * back depends on whether the username belongs to anyone: the answer, the stored row and the
 * queries run are the same — so inviting cannot be used to probe for accounts.
 *
 * Contract: invitee operations find only invitations addressed to the caller's own username;
 * any other id is `NOT_FOUND`, exactly like an unknown one.
 */
export interface InvitationService {
  /**
   * Owner: invites `{username, role?}` to the active household. Always the same shape with
   * status `pending`; inviting a name already pending renews that invitation (same id, new
   * expiry). `CONFLICT` only for someone already a member (owners see the members anyway).
   */
  invite(principal: KitchenPrincipal, input: unknown): Promise<Invitation>;
  /** Owner: the active household's open invitations (pending, not expired). */
  pending(principal: KitchenPrincipal): Promise<PendingInvitation[]>;
  /** Owner: withdraws a pending invitation of the active household; anything else is `NOT_FOUND`. */
  revoke(principal: KitchenPrincipal, id: string): Promise<void>;
  /** The open invitations addressed to the caller (no active household needed). */
  mine(principal: KitchenPrincipal): Promise<ReceivedInvitation[]>;
  /**
   * Joins the household with the invited role, in one transaction with the answer: accepted
   * once, one membership. Answered already → `CONFLICT`; past its expiry → `EXPIRED`.
   */
  accept(principal: KitchenPrincipal, id: string): Promise<HouseholdSummary>;
  /** Declines; the same answers as `accept` for an invitation that cannot be answered. */
  decline(principal: KitchenPrincipal, id: string): Promise<void>;
}

export function createInvitationService(env: ServiceEnv): InvitationService {
  const { db } = env;
  return {
    async invite(principal, input) {
      const { householdId, userId } = await requireOwner(db, principal);
      const { username, role } = parseInput(invitationInput, input);
      // This lookup and the upsert run for every name, known or not: the same queries either way.
      if (await isMemberByName(db, householdId, username))
        throw conflict('already a member of this household', 'username');
      const now = env.now();
      return upsertInvitation(db, {
        id: env.newId(),
        householdId,
        username,
        role,
        invitedBy: userId,
        now,
        expiresAt: new Date(now.getTime() + env.invitationTtlMs),
      });
    },

    async pending(principal) {
      const { householdId } = await requireOwner(db, principal);
      return pendingOf(db, householdId, env.now());
    },

    async revoke(principal, id) {
      const { householdId } = await requireOwner(db, principal);
      if (!(await revokeInvitation(db, householdId, id, env.now()))) throw notFound('invitation', 'id');
    },

    mine: (principal) => receivedBy(db, principal.userId, env.now()),

    accept: (principal, id) =>
      db.transaction(async (tx) => {
        const now = env.now();
        const { householdId, role } = await answerInvitation(tx, id, principal.userId, 'accepted', now);
        return joinHousehold(tx, householdId, principal.userId, role, now);
      }),

    async decline(principal, id) {
      await answerInvitation(db, id, principal.userId, 'declined', env.now());
    },
  };
}
