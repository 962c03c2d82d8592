import { householdInput, roleInput } from '../domain/schemas.js';
import type { HouseholdSummary, Member } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import type { ServiceEnv } from './env.js';
import {
  addMembership,
  householdsOf,
  insertHousehold,
  membersOf,
  removeMembership,
  setRole,
} from './membership-store.js';
import { requireMember, requireOwner, type KitchenPrincipal } from './principal.js';

/**
 * Roles: an owner manages the household's members (invites them through `InvitationService`,
 * changes roles, removes them) and everything a member does; a member reads and edits fridge,
 * recipes, meal plans and dietary notes, and may leave. A household always keeps at least one
 * owner.
 */
export interface HouseholdService {
  /** The households the user belongs to, with their role in each (no active household needed). */
  listMine(principal: KitchenPrincipal): Promise<HouseholdSummary[]>;
  /** A new household with the caller as its owner. */
  create(principal: KitchenPrincipal, input: unknown): Promise<HouseholdSummary>;
  members(principal: KitchenPrincipal): Promise<Member[]>;
  setRole(principal: KitchenPrincipal, userId: string, input: unknown): Promise<Member[]>;
  /** Owners remove anyone but the last owner; a member may remove only themself (leave). */
  removeMember(principal: KitchenPrincipal, userId: string): Promise<void>;
}

export function createHouseholdService(env: ServiceEnv): HouseholdService {
  const { db } = env;
  return {
    listMine: (principal) => householdsOf(db, principal.userId),

    async create(principal, input) {
      const { name } = parseInput(householdInput, input);
      const id = env.newId();
      await db.transaction(async (tx) => {
        await insertHousehold(tx, id, name, env.now());
        await addMembership(tx, id, principal.userId, 'owner', env.now());
      });
      return { id, name, role: 'owner' };
    },

    async members(principal) {
      const { householdId } = await requireMember(db, principal);
      return membersOf(db, householdId);
    },

    async setRole(principal, userId, input) {
      const { householdId } = await requireOwner(db, principal);
      const { role } = parseInput(roleInput, input);
      await db.transaction((tx) => setRole(tx, householdId, userId, role));
      return membersOf(db, householdId);
    },

    async removeMember(principal, userId) {
      const access =
        userId === principal.userId ? await requireMember(db, principal) : await requireOwner(db, principal);
      await db.transaction((tx) => removeMembership(tx, access.householdId, userId));
    },
  };
}
