import type { z } from 'zod';
import { notFound } from '../domain/errors.js';
import { fridgeItemInput, fridgeItemPatch, fridgeListQuery, useUpInput } from '../domain/schemas.js';
import type { FridgeItem, IsoDate, Location } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import type { Queryable } from '../db/db.js';
import { addDays, sqlDate, type ServiceEnv } from './env.js';
import { requireMember, type KitchenPrincipal } from './principal.js';

interface Row {
  id: string;
  name: string;
  quantity: number;
  unit: string;
  location: Location;
  expires_on: string | null;
}

const COLUMNS = `id, name, quantity, unit, location, ${sqlDate('expires_on')} AS expires_on`;

const dayNumber = (date: IsoDate): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

export interface UseUpResult {
  /** The item after use; null when it was used up and removed. */
  readonly item: FridgeItem | null;
  readonly removed: boolean;
}

export interface FridgeService {
  /** Soonest expiry first (no date last); `expiringWithinDays` keeps items due by today + N, expired ones included. */
  list(principal: KitchenPrincipal, query?: unknown): Promise<FridgeItem[]>;
  get(principal: KitchenPrincipal, id: string): Promise<FridgeItem>;
  create(principal: KitchenPrincipal, input: unknown): Promise<FridgeItem>;
  update(principal: KitchenPrincipal, id: string, patch: unknown): Promise<FridgeItem>;
  remove(principal: KitchenPrincipal, id: string): Promise<void>;
  /** Takes `quantity` away (all of it when omitted); an item reaching zero is removed. */
  useUp(principal: KitchenPrincipal, id: string, input?: unknown): Promise<UseUpResult>;
}

export function createFridgeService(env: ServiceEnv): FridgeService {
  const { db } = env;
  const toItem = (row: Row): FridgeItem => ({
    id: row.id,
    name: row.name,
    quantity: row.quantity,
    unit: row.unit,
    location: row.location,
    expiresOn: row.expires_on,
    daysLeft: row.expires_on === null ? null : dayNumber(row.expires_on) - dayNumber(env.today()),
  });

  async function find(q: Queryable, householdId: string, id: string, lock = false): Promise<Row> {
    const rows = await q.query<Row>(
      `SELECT ${COLUMNS} FROM fridge_items WHERE id = $1 AND household_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, householdId],
    );
    const row = rows[0];
    if (row === undefined) throw notFound('fridge item');
    return row;
  }

  return {
    async list(principal, query = {}) {
      const { householdId } = await requireMember(db, principal);
      const filter: z.output<typeof fridgeListQuery> = parseInput(fridgeListQuery, query);
      const params: unknown[] = [householdId];
      let where = 'household_id = $1';
      if (filter.location !== undefined) {
        params.push(filter.location);
        where += ` AND location = $${params.length}`;
      }
      if (filter.expiringWithinDays !== undefined) {
        params.push(addDays(env.today(), filter.expiringWithinDays));
        where += ` AND expires_on IS NOT NULL AND expires_on <= $${params.length}::date`;
      }
      const rows = await db.query<Row>(
        `SELECT ${COLUMNS} FROM fridge_items WHERE ${where}
         ORDER BY expires_on ASC NULLS LAST, name COLLATE "C", id`,
        params,
      );
      return rows.map(toItem);
    },

    async get(principal, id) {
      const { householdId } = await requireMember(db, principal);
      return toItem(await find(db, householdId, id));
    },

    async create(principal, input) {
      const { householdId } = await requireMember(db, principal);
      const item = parseInput(fridgeItemInput, input);
      const now = env.now().toISOString();
      const rows = await db.query<Row>(
        `INSERT INTO fridge_items (id, household_id, name, quantity, unit, location, expires_on, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLUMNS}`,
        [env.newId(), householdId, item.name, item.quantity, item.unit, item.location, item.expiresOn, now],
      );
      return toItem(rows[0] as Row);
    },

    async update(principal, id, patch) {
      const { householdId } = await requireMember(db, principal);
      const change = parseInput(fridgeItemPatch, patch);
      return db.transaction(async (tx) => {
        const current = await find(tx, householdId, id, true);
        const rows = await tx.query<Row>(
          `UPDATE fridge_items SET name = $3, quantity = $4, unit = $5, location = $6, expires_on = $7, updated_at = $8
           WHERE id = $1 AND household_id = $2 RETURNING ${COLUMNS}`,
          [
            id,
            householdId,
            change.name ?? current.name,
            change.quantity ?? current.quantity,
            change.unit ?? current.unit,
            change.location ?? current.location,
            change.expiresOn === undefined ? current.expires_on : change.expiresOn,
            env.now().toISOString(),
          ],
        );
        return toItem(rows[0] as Row);
      });
    },

    async remove(principal, id) {
      const { householdId } = await requireMember(db, principal);
      const rows = await db.query(
        'DELETE FROM fridge_items WHERE id = $1 AND household_id = $2 RETURNING id',
        [id, householdId],
      );
      if (rows.length === 0) throw notFound('fridge item');
    },

    async useUp(principal, id, input = {}) {
      const { householdId } = await requireMember(db, principal);
      const { quantity } = parseInput(useUpInput, input);
      return db.transaction(async (tx) => {
        const current = await find(tx, householdId, id, true);
        // Rounded so that 0.1 + 0.2 style leftovers do not keep a phantom item alive.
        const left = quantity === undefined ? 0 : Math.round((current.quantity - quantity) * 1000) / 1000;
        if (left <= 0) {
          await tx.query('DELETE FROM fridge_items WHERE id = $1 AND household_id = $2', [id, householdId]);
          return { item: null, removed: true };
        }
        const rows = await tx.query<Row>(
          `UPDATE fridge_items SET quantity = $3, updated_at = $4 WHERE id = $1 AND household_id = $2
           RETURNING ${COLUMNS}`,
          [id, householdId, left, env.now().toISOString()],
        );
        return { item: toItem(rows[0] as Row), removed: false };
      });
    },
  };
}
