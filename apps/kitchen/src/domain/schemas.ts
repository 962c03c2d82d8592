import { z } from 'zod';
import { LOCATIONS, NOTE_KINDS, ROLES, SLOTS } from './types.js';

const text = (max: number) => z.string().trim().min(1).max(max);

/** The dates the kitchen takes: a household's plans and best-before dates, not history (PostgreSQL has no year 0). */
export const FIRST_DATE = '1900-01-01';
export const LAST_DATE = '2999-12-31';

/** `YYYY-MM-DD` that is a real calendar date, from `FIRST_DATE` to `LAST_DATE`. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date as YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'not a calendar date')
  .refine((s) => s >= FIRST_DATE && s <= LAST_DATE, `must be from ${FIRST_DATE} to ${LAST_DATE}`);

const id = z.string().min(1).max(64);
/** At most 3 decimals (a thousandth of a unit): what is left after a use is kept exactly so. */
const thousandths = (n: number): boolean => Math.abs(n * 1000 - Math.round(n * 1000)) < 1e-6;
const quantity = z.number().finite().min(0).max(1_000_000).refine(thousandths, 'at most 3 decimals');

export const fridgeItemInput = z.strictObject({
  name: text(60),
  quantity,
  unit: text(16),
  location: z.enum(LOCATIONS).default('fridge'),
  expiresOn: isoDate.nullable().default(null),
});
export const fridgeItemPatch = z.strictObject({
  name: text(60).optional(),
  quantity: quantity.optional(),
  unit: text(16).optional(),
  location: z.enum(LOCATIONS).optional(),
  expiresOn: isoDate.nullable().optional(),
});
export const fridgeListQuery = z.strictObject({
  // A number, or digits from a query string ('' and 'soon' are refused, not read as 0).
  expiringWithinDays: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,3}$/, 'expected whole days')
        .transform(Number),
    ])
    .pipe(z.number().int().min(0).max(365))
    .optional(),
  location: z.enum(LOCATIONS).optional(),
});
export const useUpInput = z.strictObject({
  /** Omitted: the whole item is used up and removed. */
  quantity: z
    .number()
    .finite()
    .positive()
    .max(1_000_000)
    .refine(thousandths, 'at most 3 decimals')
    .optional(),
});

const ingredient = z.strictObject({
  name: text(40),
  quantity: z.number().finite().positive().max(1_000_000).nullable().default(null),
  unit: text(16).nullable().default(null),
});
export const recipeInput = z.strictObject({
  name: text(80),
  servings: z.number().int().min(1).max(50).default(2),
  ingredients: z.array(ingredient).min(1).max(50),
  steps: z.array(text(500)).max(50).default([]),
  tags: z.array(text(20)).max(20).default([]),
});
export const recipePatch = z.strictObject({
  name: text(80).optional(),
  servings: z.number().int().min(1).max(50).optional(),
  ingredients: z.array(ingredient).min(1).max(50).optional(),
  steps: z.array(text(500)).max(50).optional(),
  tags: z.array(text(20)).max(20).optional(),
});
export const recipeListQuery = z.strictObject({
  q: z.string().trim().max(80).optional(),
  tag: z.string().trim().max(20).optional(),
});
/** Recipes against what is at home; `ingredients` (optional) keeps those using one of them, first. */
export const homeMatchInput = z.strictObject({
  ingredients: z.array(text(40)).min(1).max(20).optional(),
  limit: z.number().int().min(1).max(50).default(10),
});

/** A bounded view of the fridge (soonest expiry first) for the assistant: `limit` items of `total`. */
export const fridgeOverviewQuery = z.strictObject({
  expiringWithinDays: z.number().int().min(0).max(365).optional(),
  location: z.enum(LOCATIONS).optional(),
  limit: z.number().int().min(1).max(100).default(20),
});

export const recipeSearchInput = z.strictObject({
  ingredients: z.array(text(40)).min(1).max(20),
  limit: z.number().int().min(1).max(50).default(10),
});

export const dateRange = z
  .strictObject({ from: isoDate, to: isoDate })
  .refine((r) => r.from <= r.to, { message: 'must not be before from', path: ['to'] })
  .refine((r) => daysBetween(r.from, r.to) <= 62, { message: 'range over 62 days', path: ['to'] });
export const mealPlanInput = z.strictObject({
  date: isoDate,
  slot: z.enum(SLOTS),
  recipeId: id,
  servings: z.number().int().min(1).max(50).nullable().default(null),
  note: z.string().trim().max(200).nullable().default(null),
});
export const mealPlanPatch = z.strictObject({
  date: isoDate.optional(),
  slot: z.enum(SLOTS).optional(),
  recipeId: id.optional(),
  servings: z.number().int().min(1).max(50).nullable().optional(),
  note: z.string().trim().max(200).nullable().optional(),
});

export const dietaryNoteInput = z.strictObject({
  kind: z.enum(NOTE_KINDS),
  label: text(40),
  person: text(20).nullable().default(null),
  note: z.string().trim().max(200).nullable().default(null),
});

/** The username trimmed and lower-cased, as an invitation takes it (usernames are lower case by rule). */
export const loginInput = z.strictObject({
  username: z.string().max(64).trim().toLowerCase(),
  password: z.string().max(256),
});
const USERNAME = /^[a-z0-9_.-]{2,32}$/;
const USERNAME_RULE = 'use 2-32 of a-z, 0-9, _ . -';
export const usernameSchema = z.string().regex(USERNAME, USERNAME_RULE);
export const passwordSchema = z.string().min(8).max(256);
export const newUserInput = z.strictObject({
  username: usernameSchema,
  displayName: text(40),
  password: passwordSchema,
});
export const householdInput = z.strictObject({ name: text(40) });
export const switchInput = z.strictObject({ householdId: id });
/** Trimmed and lower-cased before the check, so `" XiaoWang "` invites `xiaowang`. */
export const invitationInput = z.strictObject({
  username: z.string().max(64).trim().toLowerCase().regex(USERNAME, USERNAME_RULE),
  role: z.enum(ROLES).default('member'),
});
export const roleInput = z.strictObject({ role: z.enum(ROLES) });

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
