// The API's shapes are the kitchen's own domain types (type-only: nothing of the server is bundled).
import type { HouseholdSummary as KitchenHouseholdSummary, User } from '@reins/kitchen/types';
export type {
  DietaryNote,
  DietaryProfile,
  FridgeItem,
  Ingredient,
  Invitation,
  Location,
  MealPlanEntry,
  PendingInvitation,
  ReceivedInvitation,
  Recipe,
  Role,
  Slot,
  User,
} from '@reins/kitchen/types';

/** A household as `GET /api/me` lists it: the kitchen's summary, marked when it is the active one. */
export interface HouseholdSummary extends KitchenHouseholdSummary {
  readonly active?: boolean;
}
export interface Me {
  readonly user: User;
  readonly activeHousehold: HouseholdSummary | null;
  readonly households: readonly HouseholdSummary[];
}
