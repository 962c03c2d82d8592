import type { Db, Queryable } from '../db/db.js';
import { addDays } from '../services/env.js';
import { createKitchenServices } from '../services/kitchen-services.js';
import type { ServiceDeps } from '../services/env.js';
import { DEMO_HOUSEHOLDS, DEMO_USERS } from './demo-data.js';

const MARKER = 'demo_seed';

/** A `Db` whose every call runs in one open transaction, so the seed goes through the services atomically. */
function inTransaction(db: Db, tx: Queryable): Db {
  return {
    backend: db.backend,
    query: tx.query,
    exec: tx.exec,
    transaction: (fn) => fn(tx),
    close: db.close,
  };
}

/**
 * Seeds the demo households through the service layer — once: only on a database with no
 * users and no seed marker, all in one transaction (a crash leaves nothing half-seeded).
 * Returns whether it seeded.
 */
export async function seedDemo(deps: ServiceDeps): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    await tx.query('LOCK TABLE kitchen_meta IN EXCLUSIVE MODE');
    const marker = await tx.query('SELECT 1 FROM kitchen_meta WHERE key = $1', [MARKER]);
    const users = await tx.query('SELECT 1 FROM users LIMIT 1');
    if (marker.length > 0 || users.length > 0) return false;

    const services = createKitchenServices({ ...deps, db: inTransaction(deps.db, tx) });
    const userIds = new Map<string, string>();
    for (const u of DEMO_USERS) {
      const created = await services.admin.addUser(u);
      userIds.set(u.username, created.id);
    }
    const today = services.env.today();
    for (const h of DEMO_HOUSEHOLDS) {
      const household = await services.admin.createHousehold({ name: h.name }, h.owner);
      for (const m of h.members) await services.admin.addMember(household.id, m, 'member');
      const ownerId = userIds.get(h.owner);
      if (ownerId === undefined) throw new Error(`demo data: unknown owner ${h.owner}`);
      const principal = { userId: ownerId, householdId: household.id };
      for (const [name, quantity, unit, location, days] of h.fridge) {
        const expiresOn = days === null ? null : addDays(today, days);
        await services.fridge.create(principal, { name, quantity, unit, location, expiresOn });
      }
      const recipeIds = new Map<string, string>();
      for (const recipe of h.recipes) {
        const created = await services.recipes.create(principal, {
          ...recipe,
          ingredients: recipe.ingredients.map(([name, quantity, unit]) => ({ name, quantity, unit })),
        });
        recipeIds.set(recipe.name, created.id);
      }
      for (const [offset, slot, name] of h.plans) {
        await services.mealPlans.create(principal, {
          date: addDays(today, offset),
          slot,
          recipeId: recipeIds.get(name),
        });
      }
      for (const [kind, label, person, note] of h.notes) {
        await services.preferences.add(principal, { kind, label, person, note });
      }
    }
    await tx.query('INSERT INTO kitchen_meta (key, value) VALUES ($1, $2)', [
      MARKER,
      services.env.now().toISOString(),
    ]);
    return true;
  });
}
