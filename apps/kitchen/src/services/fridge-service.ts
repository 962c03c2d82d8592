import type { z } from 'zod';
import { conflict, notFound } from '../domain/errors.js';
import {
  fridgeItemInput,
  fridgeItemPatch,
  fridgeListQuery,
  fridgeOverviewQuery,
  useUpInput,
} from '../domain/schemas.js';
import type { FridgeItem, IsoDate, Location } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import { acceptedVersions, checkIfMatch, type WriteOptions } from '../domain/versions.js';
import type { Queryable } from '../db/db.js';
import { addDays, sqlDate, type ServiceEnv } from './env.js';
import { confirmMemberRead, memberScope, requireMember, type KitchenPrincipal } from './principal.js';

interface Row {
  id: string;
  name: string;
  quantity: number;
  unit: string;
  location: Location;
  expires_on: string | null;
  version: number;
}

const COLUMNS = `id, name, quantity, unit, location, ${sqlDate('expires_on')} AS expires_on, version`;
const WHAT = 'fridge item';

const dayNumber = (date: IsoDate): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

export interface UseUpResult {
  /** The item after use; null when it was used up and removed. */
  readonly item: FridgeItem | null;
  readonly removed: boolean;
}

export interface FridgeService {
  /** Soonest expiry first (no date last); `expiringWithinDays` keeps items due by today + N, expired ones included. */
  list(principal: KitchenPrincipal, query?: unknown): Promise<FridgeItem[]>;
  /**
   * `{expiringWithinDays?, location?, limit?}`: the first `limit` (default 20) of `list`'s order
   * and how many there are in all, so a household with 500 items gets a bounded, useful view.
   */
  overview(principal: KitchenPrincipal, query?: unknown): Promise<{ items: FridgeItem[]; total: number }>;
  get(principal: KitchenPrincipal, id: string): Promise<FridgeItem>;
  create(principal: KitchenPrincipal, input: unknown): Promise<FridgeItem>;
  /** Fields given replace the stored ones; +1 version. `ifMatch` not naming the current version: 412. */
  update(
    principal: KitchenPrincipal,
    id: string,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<FridgeItem>;
  remove(principal: KitchenPrincipal, id: string, options?: WriteOptions): Promise<void>;
  /**
   * Takes `quantity` away (all of it when omitted) in one conditional UPDATE, so concurrent uses
   * never lose one; more than is left is a 409 `CONFLICT`. An item reaching zero is removed.
   */
  useUp(
    principal: KitchenPrincipal,
    id: string,
    input?: unknown,
    options?: WriteOptions,
  ): Promise<UseUpResult>;
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
    version: row.version,
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

  /** WHERE (household first) and its parameters for a list filter. */
  function listWhere(householdId: string, filter: { location?: Location; expiringWithinDays?: number }) {
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
    return { where, params };
  }
  const ORDER = 'ORDER BY expires_on ASC NULLS LAST, name COLLATE "C", id';

  return {
    async list(principal, query = {}) {
      const { householdId } = await requireMember(db, principal);
      const filter: z.output<typeof fridgeListQuery> = parseInput(fridgeListQuery, query);
      const { where, params } = listWhere(householdId, filter);
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM fridge_items WHERE ${where} ${ORDER}`, params);
      return rows.map(toItem);
    },

    async overview(principal, query = {}) {
      const { householdId, userId } = memberScope(principal);
      const filter = parseInput(fridgeOverviewQuery, query);
      const { where, params } = listWhere(householdId, filter);
      const rows = await db.query<Row & { total: number }>(
        `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM fridge_items WHERE ${where}
         AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $${params.length + 1})
         ${ORDER} LIMIT $${params.length + 2}`,
        [...params, userId, filter.limit],
      );
      await confirmMemberRead(db, principal, rows);
      return { items: rows.map(toItem), total: rows[0]?.total ?? 0 };
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

    async update(principal, id, patch, options = {}) {
      const { householdId } = await requireMember(db, principal);
      const change = parseInput(fridgeItemPatch, patch);
      return db.transaction(async (tx) => {
        // Locked until commit: the version checked is the version replaced.
        const current = await find(tx, householdId, id, true);
        checkIfMatch(WHAT, id, current.version, options.ifMatch);
        const rows = await tx.query<Row>(
          `UPDATE fridge_items SET name = $3, quantity = $4, unit = $5, location = $6, expires_on = $7, updated_at = $8,
             version = version + 1
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

    async remove(principal, id, options = {}) {
      const { householdId } = await requireMember(db, principal);
      await db.transaction(async (tx) => {
        const current = await find(tx, householdId, id, true);
        checkIfMatch(WHAT, id, current.version, options.ifMatch);
        await tx.query('DELETE FROM fridge_items WHERE id = $1 AND household_id = $2', [id, householdId]);
      });
    },

    async useUp(principal, id, input = {}, options = {}) {
      const { householdId } = await requireMember(db, principal);
      const { quantity } = parseInput(useUpInput, input);
      // null: any version (no If-Match, or *); otherwise only these.
      const versions = acceptedVersions(id, options.ifMatch);
      const params = [id, householdId, versions === null ? null : JSON.stringify(versions)];
      const versionOk =
        '($3::jsonb IS NULL OR version IN (SELECT jsonb_array_elements_text($3::jsonb)::int))';
      return db.transaction(async (tx) => {
        // One statement each, checked by the database against the row as it is when written
        // (no read-then-write): of two concurrent "use 6 of 10" one gets 4 left, the other 409.
        const rows =
          quantity === undefined
            ? await tx.query<Row>(
                `DELETE FROM fridge_items WHERE id = $1 AND household_id = $2 AND ${versionOk}
                 RETURNING ${COLUMNS}`,
                params,
              )
            : await tx.query<Row>(
                // Rounded so that 0.1 + 0.2 style leftovers do not keep a phantom item alive.
                `UPDATE fridge_items SET quantity = round((quantity - $4)::numeric, 3)::double precision,
                   version = version + 1, updated_at = $5
                 WHERE id = $1 AND household_id = $2 AND ${versionOk} AND quantity >= $4
                 RETURNING ${COLUMNS}`,
                [...params, quantity, env.now().toISOString()],
              );
        const row = rows[0];
        if (row === undefined) {
          // Nothing written: say why (missing, another version, or not that much left).
          const current = await find(tx, householdId, id);
          checkIfMatch(WHAT, id, current.version, options.ifMatch);
          throw conflict(
            `only ${current.quantity} ${current.unit} of ${current.name} left: cannot use ${quantity ?? 0}`,
            'quantity',
          );
        }
        if (quantity === undefined) return { item: null, removed: true };
        if (row.quantity > 0) return { item: toItem(row), removed: false };
        // Used to zero: gone. Same transaction, so the row lock the UPDATE took is held until then.
        await tx.query('DELETE FROM fridge_items WHERE id = $1 AND household_id = $2', [id, householdId]);
        return { item: null, removed: true };
      });
    },
  };
}
