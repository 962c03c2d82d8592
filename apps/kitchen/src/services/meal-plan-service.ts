import { z } from 'zod';
import { invalid, notFound } from '../domain/errors.js';
import {
  dateRange,
  FIRST_DATE,
  isoDate,
  LAST_DATE,
  mealPlanInput,
  mealPlanPatch,
} from '../domain/schemas.js';
import type { IsoDate, MealPlanEntry, Slot } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import { checkIfMatch, type WriteOptions } from '../domain/versions.js';
import type { Queryable } from '../db/db.js';
import { addDays, sqlDate, type ServiceEnv } from './env.js';
import { confirmMemberRead, memberScope, requireMember, type KitchenPrincipal } from './principal.js';

interface Row {
  id: string;
  date: string;
  slot: Slot;
  recipe_id: string;
  recipe_name: string;
  servings: number | null;
  note: string | null;
  version: number;
}

const SELECT = `SELECT p.id, ${sqlDate('p.plan_date')} AS date, p.slot, p.recipe_id, r.name AS recipe_name,
  p.servings, p.note, p.version
  FROM meal_plans p JOIN recipes r ON r.household_id = p.household_id AND r.id = p.recipe_id`;
const ORDER = `ORDER BY p.plan_date,
  CASE p.slot WHEN 'breakfast' THEN 0 WHEN 'lunch' THEN 1 ELSE 2 END, p.seq`;

const toEntry = (r: Row): MealPlanEntry => ({
  id: r.id,
  date: r.date,
  slot: r.slot,
  recipeId: r.recipe_id,
  recipeName: r.recipe_name,
  servings: r.servings,
  note: r.note,
  version: r.version,
});
const WHAT = 'meal plan entry';

/** Monday of the week holding `date` (weeks start on Monday, as on a Chinese calendar). */
export function weekStart(date: IsoDate): IsoDate {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(date, -((weekday + 6) % 7));
}

export interface MealPlanService {
  /** Entries from `from` to `to` inclusive (at most 62 days), by date then slot. */
  list(principal: KitchenPrincipal, range: unknown): Promise<MealPlanEntry[]>;
  /** Monday to Sunday of the week holding `date` (default: today); a bad date names the field `week`. */
  week(
    principal: KitchenPrincipal,
    date?: unknown,
  ): Promise<{ from: IsoDate; to: IsoDate; entries: MealPlanEntry[] }>;
  get(principal: KitchenPrincipal, id: string): Promise<MealPlanEntry>;
  create(principal: KitchenPrincipal, input: unknown): Promise<MealPlanEntry>;
  /** Fields given replace the stored ones; +1 version. `ifMatch` not naming the current version: 412. */
  update(
    principal: KitchenPrincipal,
    id: string,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<MealPlanEntry>;
  remove(principal: KitchenPrincipal, id: string, options?: WriteOptions): Promise<void>;
}

export function createMealPlanService(env: ServiceEnv): MealPlanService {
  const { db } = env;

  async function findOne(q: Queryable, householdId: string, id: string): Promise<MealPlanEntry> {
    const rows = await q.query<Row>(`${SELECT} WHERE p.id = $1 AND p.household_id = $2`, [id, householdId]);
    const row = rows[0];
    if (row === undefined) throw notFound('meal plan entry');
    return toEntry(row);
  }

  /** Locks the entry's row until the transaction ends and checks `If-Match` against it. */
  async function lockChecked(q: Queryable, householdId: string, id: string, options: WriteOptions) {
    const rows = await q.query<{ version: number }>(
      'SELECT version FROM meal_plans WHERE id = $1 AND household_id = $2 FOR UPDATE',
      [id, householdId],
    );
    const row = rows[0];
    if (row === undefined) throw notFound(WHAT);
    checkIfMatch(WHAT, id, row.version, options.ifMatch);
  }

  /** A recipe of another household is reported exactly like a missing one. */
  async function requireRecipe(q: Queryable, householdId: string, recipeId: string): Promise<void> {
    const rows = await q.query('SELECT 1 FROM recipes WHERE id = $1 AND household_id = $2', [
      recipeId,
      householdId,
    ]);
    if (rows.length === 0) throw notFound('recipe', 'recipeId');
  }

  async function list(principal: KitchenPrincipal, range: unknown): Promise<MealPlanEntry[]> {
    const { householdId, userId } = memberScope(principal);
    const { from, to } = parseInput(dateRange, range);
    const rows = await db.query<Row>(
      `${SELECT} WHERE p.household_id = $1 AND p.plan_date BETWEEN $2::date AND $3::date
       AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $4) ${ORDER}`,
      [householdId, from, to, userId],
    );
    return (await confirmMemberRead(db, principal, rows)).map(toEntry);
  }

  return {
    list,

    async week(principal, date) {
      const day =
        date === undefined ? env.today() : parseInput(z.strictObject({ week: isoDate }), { week: date }).week;
      const from = weekStart(day);
      const to = addDays(from, 6);
      // The week is the caller's: one that runs past the last date is refused naming it.
      if (to > LAST_DATE || from < FIRST_DATE)
        throw invalid('week', `the week must lie from ${FIRST_DATE} to ${LAST_DATE}`);
      return { from, to, entries: await list(principal, { from, to }) };
    },

    async get(principal, id) {
      const { householdId } = await requireMember(db, principal);
      return findOne(db, householdId, id);
    },

    async create(principal, input) {
      const { householdId } = await requireMember(db, principal);
      const entry = parseInput(mealPlanInput, input);
      return db.transaction(async (tx) => {
        await requireRecipe(tx, householdId, entry.recipeId);
        const id = env.newId();
        await tx.query(
          `INSERT INTO meal_plans (id, household_id, plan_date, slot, recipe_id, servings, note, created_at)
           VALUES ($1, $2, $3::date, $4, $5, $6, $7, $8)`,
          [
            id,
            householdId,
            entry.date,
            entry.slot,
            entry.recipeId,
            entry.servings,
            entry.note,
            env.now().toISOString(),
          ],
        );
        return findOne(tx, householdId, id);
      });
    },

    async update(principal, id, patch, options = {}) {
      const { householdId } = await requireMember(db, principal);
      const change = parseInput(mealPlanPatch, patch);
      return db.transaction(async (tx) => {
        await lockChecked(tx, householdId, id, options);
        const current = await findOne(tx, householdId, id);
        if (change.recipeId !== undefined) await requireRecipe(tx, householdId, change.recipeId);
        await tx.query(
          `UPDATE meal_plans SET plan_date = $3::date, slot = $4, recipe_id = $5, servings = $6, note = $7,
             version = version + 1
           WHERE id = $1 AND household_id = $2`,
          [
            id,
            householdId,
            change.date ?? current.date,
            change.slot ?? current.slot,
            change.recipeId ?? current.recipeId,
            change.servings === undefined ? current.servings : change.servings,
            change.note === undefined ? current.note : change.note,
          ],
        );
        return findOne(tx, householdId, id);
      });
    },

    async remove(principal, id, options = {}) {
      const { householdId } = await requireMember(db, principal);
      await db.transaction(async (tx) => {
        await lockChecked(tx, householdId, id, options);
        await tx.query('DELETE FROM meal_plans WHERE id = $1 AND household_id = $2', [id, householdId]);
      });
    },
  };
}
