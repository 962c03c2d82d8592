import type { ScriptReply } from 'reins';
import { scriptModel } from 'reins/testing';
import { expect } from 'vitest';
import { kitchenAgent } from '../src/assistant/agent.js';
import { fakeNutrition, type AssistantRun } from './assistant-helpers.js';
import type { Harness } from './harness.js';

/** Ids of household 老王家 (B) and its owner, straight from the database. */
export async function targetsInB(h: Harness) {
  const household = await h.householdId('老王家');
  const one = async (table: string) =>
    (
      await h.db.query<{ id: string }>(`SELECT id FROM ${table} WHERE household_id = $1 LIMIT 1`, [household])
    )[0]?.id ?? '';
  const owner = await h.db.query<{ id: string }>("SELECT id FROM users WHERE username = 'laowang'");
  return {
    household,
    owner: owner[0]?.id ?? '',
    fridge: await one('fridge_items'),
    recipe: await one('recipes'),
    plan: await one('meal_plans'),
    note: await one('dietary_notes'),
  };
}

/** Every string of a row of `household`: ids, names, ingredients, steps, tags, notes. */
export async function rowStrings(h: Harness, household: string): Promise<string[]> {
  const rows = await h.db.query<{ v: string | null }>(
    `SELECT id::text AS v FROM fridge_items WHERE household_id = $1
     UNION ALL SELECT name FROM fridge_items WHERE household_id = $1
     UNION ALL SELECT id::text FROM recipes WHERE household_id = $1
     UNION ALL SELECT name FROM recipes WHERE household_id = $1
     UNION ALL SELECT jsonb_array_elements_text(steps::jsonb) FROM recipes WHERE household_id = $1
     UNION ALL SELECT jsonb_array_elements_text(tags::jsonb) FROM recipes WHERE household_id = $1
     UNION ALL SELECT i.name FROM recipe_ingredients i JOIN recipes r ON r.id = i.recipe_id WHERE r.household_id = $1
     UNION ALL SELECT id::text FROM meal_plans WHERE household_id = $1
     UNION ALL SELECT note FROM meal_plans WHERE household_id = $1
     UNION ALL SELECT id::text FROM dietary_notes WHERE household_id = $1
     UNION ALL SELECT label FROM dietary_notes WHERE household_id = $1
     UNION ALL SELECT person FROM dietary_notes WHERE household_id = $1
     UNION ALL SELECT note FROM dietary_notes WHERE household_id = $1`,
    [household],
  );
  return [...new Set(rows.flatMap((r) => (r.v === null || r.v === '' ? [] : [r.v])))];
}

export const AFTER = ['2026-04-01', '2026-05-31'] as const;

/** Household B's row strings that could only have come from B's rows (not from A's, nor typed by the attacker). */
export async function leakMarkers(h: Harness, script: readonly ScriptReply[]): Promise<string[]> {
  const a = await h.householdId('小贾家');
  const agent = kitchenAgent(h.services, { model: scriptModel([]), nutrition: fakeNutrition().lookup });
  const known = [
    JSON.stringify(await rowStrings(h, a)),
    JSON.stringify(script),
    agent.instructions,
    JSON.stringify(agent.tools.map((t) => [t.name, t.description, t.input.toJSONSchema()])),
    '今晚吃什么？',
  ].join('\n');
  return (await rowStrings(h, await h.householdId('老王家'))).filter((s) => !known.includes(s));
}

export function expectNoLeak(run: AssistantRun, markers: readonly string[]) {
  const places = {
    observations: JSON.stringify(run.observations),
    answer: run.answer ?? '',
    events: JSON.stringify(run.events),
    record: JSON.stringify(run.record),
  };
  for (const [where, text] of Object.entries(places)) {
    for (const marker of markers) expect(text.includes(marker), `${where} contains ${marker}`).toBe(false);
  }
}

/** No marker (a string only another household's rows hold) in any of the named texts. */
export function expectNoLeakIn(places: Readonly<Record<string, string>>, markers: readonly string[]) {
  for (const [where, text] of Object.entries(places)) {
    for (const marker of markers) expect(text.includes(marker), `${where} contains ${marker}`).toBe(false);
  }
}
