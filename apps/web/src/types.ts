// The shapes the pages read from the kitchen API (see apps/kitchen/src/domain/types.ts).
export interface User {
  readonly id: string;
  readonly username: string;
  readonly displayName: string;
}
export interface HouseholdSummary {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly active?: boolean;
}
export interface Me {
  readonly user: User;
  readonly activeHousehold: HouseholdSummary | null;
  readonly households: readonly HouseholdSummary[];
}
export type Location = 'fridge' | 'freezer' | 'pantry';
export interface FridgeItem {
  readonly id: string;
  readonly name: string;
  readonly quantity: number;
  readonly unit: string;
  readonly location: Location;
  readonly expiresOn: string | null;
  readonly daysLeft: number | null;
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
}
export type Slot = 'breakfast' | 'lunch' | 'dinner';
export interface MealPlanEntry {
  readonly id: string;
  readonly date: string;
  readonly slot: Slot;
  readonly recipeId: string;
  readonly recipeName: string;
  readonly servings: number | null;
  readonly note: string | null;
}
export interface DietaryNote {
  readonly id: string;
  readonly kind: 'allergy' | 'preference';
  readonly label: string;
  readonly person: string | null;
  readonly note: string | null;
}
export interface DietaryProfile {
  readonly allergies: readonly DietaryNote[];
  readonly preferences: readonly DietaryNote[];
}
