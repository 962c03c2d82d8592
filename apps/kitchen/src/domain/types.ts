export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const LOCATIONS = ['fridge', 'freezer', 'pantry'] as const;
export type Location = (typeof LOCATIONS)[number];

export const SLOTS = ['breakfast', 'lunch', 'dinner'] as const;
export type Slot = (typeof SLOTS)[number];

export const NOTE_KINDS = ['allergy', 'preference'] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

/** A calendar date, `YYYY-MM-DD`, in the household's time zone. */
export type IsoDate = string;

export interface User {
  readonly id: string;
  readonly username: string;
  readonly displayName: string;
}

export interface HouseholdSummary {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
}

export interface Member {
  readonly userId: string;
  readonly username: string;
  readonly displayName: string;
  readonly role: Role;
  readonly joinedAt: string;
}

export const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/**
 * An invitation as the inviting owner gets it back: the same fields whether or not a user of
 * that name exists (an invitation is addressed to a username, not to an account).
 */
export interface Invitation {
  readonly id: string;
  /** Lower-cased as typed. */
  readonly username: string;
  readonly role: Role;
  readonly status: InvitationStatus;
  readonly expiresAt: string;
}

/** A pending invitation in its household's list (owners only). */
export interface PendingInvitation extends Invitation {
  readonly createdAt: string;
  /** The display name of the owner who sent (or last renewed) it. */
  readonly invitedBy: string;
}

/** A pending invitation as its invitee sees it. */
export interface ReceivedInvitation {
  readonly id: string;
  readonly household: { readonly id: string; readonly name: string };
  readonly role: Role;
  /** The display name of the owner who sent it. */
  readonly invitedBy: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export interface FridgeItem {
  readonly id: string;
  readonly name: string;
  readonly quantity: number;
  readonly unit: string;
  readonly location: Location;
  readonly expiresOn: IsoDate | null;
  /** Whole days from today to `expiresOn` (negative: expired); null without a date. */
  readonly daysLeft: number | null;
  /** 1 when created, +1 on every change (edit, use); the ETag is `"<id>-v<version>"`. */
  readonly version: number;
}

export interface Ingredient {
  readonly name: string;
  readonly quantity: number | null;
  readonly unit: string | null;
}

export interface Recipe {
  readonly id: string;
  readonly name: string;
  readonly servings: number;
  readonly ingredients: readonly Ingredient[];
  readonly steps: readonly string[];
  readonly tags: readonly string[];
  /** 1 when created, +1 on every edit; the ETag is `"<id>-v<version>"`. */
  readonly version: number;
}

export interface RecipeMatch {
  readonly recipe: Recipe;
  /** The asked-for ingredients this recipe uses, as asked. */
  readonly matched: readonly string[];
  /** Ingredients of the recipe that none of the asked-for names covers. */
  readonly missing: readonly string[];
}

export interface MealPlanEntry {
  readonly id: string;
  readonly date: IsoDate;
  readonly slot: Slot;
  readonly recipeId: string;
  readonly recipeName: string;
  readonly servings: number | null;
  readonly note: string | null;
  /** 1 when created, +1 on every edit; the ETag is `"<id>-v<version>"`. */
  readonly version: number;
}

export interface DietaryNote {
  readonly id: string;
  readonly kind: NoteKind;
  readonly label: string;
  readonly person: string | null;
  readonly note: string | null;
}

export interface DietaryProfile {
  readonly allergies: readonly DietaryNote[];
  readonly preferences: readonly DietaryNote[];
}
