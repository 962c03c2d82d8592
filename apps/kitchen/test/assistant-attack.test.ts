import { expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import type { ScriptReply } from 'reins';
import { act, actions, ask, call, final } from './assistant-helpers.js';
import { AFTER, expectNoLeak, leakMarkers, rowStrings, targetsInB } from './attack-helpers.js';
import { describeEachBackend } from './harness.js';

describeEachBackend('kitchen assistant: the script model as an attacker', (harness) => {
  it('household ids, B row ids, SQL fragments, unknown tools and many calls at once leak zero rows of B', async () => {
    const h = harness();
    const b = await targetsInB(h);
    const xiaojia = await h.principal('xiaojia'); // 小贾家 (A) only
    const before = await rowStrings(h, b.household);
    const script: ScriptReply[] = [
      // Step 1: tenant ids in every tool's input, five calls at once.
      actions([
        call('fridge_items', { household_id: b.household }),
        call('search_recipes', { ingredients: ['排骨'], space_id: b.household }),
        call('meal_plan', { from: AFTER[0], to: AFTER[1], householdId: b.household }),
        call('household_preferences', { userId: b.owner, household_id: b.household }),
        call('nutrition_lookup', { food: '鸡蛋', provenance: 'verified' }),
      ]),
      // Step 2: native tool calls — SQL in strings, B's ids as values, an unknown tool.
      {
        toolCalls: [
          {
            name: 'search_recipes',
            arguments: { ingredients: ["' OR 1=1 --", "鸡蛋'; DROP TABLE recipes; --"] },
          },
          { name: 'search_recipes', arguments: { ingredients: [b.recipe, b.household, '%', '_'] } },
          { name: 'fridge_items', arguments: JSON.stringify({}) }, // a fair call: A's fridge
          {
            name: 'meal_plan',
            arguments: { from: `${AFTER[0]}' OR household_id IS NOT NULL --`, to: AFTER[1] },
          },
          { name: 'get_recipe', arguments: { id: b.recipe, household_id: b.household } },
        ],
      },
      // Step 3: more unknown tools and ids smuggled in as values of known keys.
      actions([
        call('sql', { query: `SELECT * FROM recipes WHERE household_id = '${b.household}'` }),
        call('delete_recipe', { id: b.recipe }),
        call('fridge_items', { id: b.fridge }),
        call('fridge_items', { location: "fridge' OR '1'='1" }),
        call('household_preferences', {}), // a fair call: A's allergies
      ]),
      // Step 4 (no tools offered): still trying.
      act('household_preferences', { household_id: b.household }),
    ];
    const run = await ask(h, xiaojia, scriptModel(script));

    const markers = await leakMarkers(h, script);
    expect(markers.length).toBeGreaterThan(10); // 糖醋排骨, 清蒸鲈鱼, 鲈鱼, 牛腩, 海鲜过敏, B's ids …
    expect(markers).toContain('糖醋排骨');
    expect(markers).toContain(b.plan);
    expectNoLeak(run, markers);

    // Observations contain no id of B at all, not even the ones the attacker typed.
    const observed = JSON.stringify(run.observations.map((o) => [o.result, o.error]));
    for (const id of Object.values(b)) expect(observed).not.toContain(id);

    // What happened, call by call: unknown keys refused before the tool ran, unknown tools named.
    const byTool = run.observations.map(
      (o) => `${o.tool}:${o.status === 'ok' ? 'ok' : (o.error?.code ?? o.status)}`,
    );
    expect(byTool.slice(0, 5)).toEqual([
      'fridge_items:INVALID_PARAMETER',
      'search_recipes:INVALID_PARAMETER',
      'meal_plan:INVALID_PARAMETER',
      'household_preferences:INVALID_PARAMETER',
      'nutrition_lookup:INVALID_PARAMETER',
    ]);
    expect(byTool).toContain('get_recipe:UNKNOWN_TOOL');
    expect(byTool).toContain('sql:UNKNOWN_TOOL');
    expect(byTool).toContain('delete_recipe:UNKNOWN_TOOL');
    // The SQL-fragment searches ran, over A's recipes only, and found nothing of A's or B's.
    const searches = run.observations.filter((o) => o.tool === 'search_recipes' && o.status === 'ok');
    expect(searches.length).toBeGreaterThan(0);

    // The fair calls in between did return A's rows: the haystack is not empty.
    expect(byTool).toContain('fridge_items:ok');
    expect(byTool).toContain('household_preferences:ok');
    expect(observed).toContain('花生');

    // Nothing of B changed, and the run ended without a crash.
    expect(await rowStrings(h, b.household)).toEqual(before);
    expect(['success', 'stopped']).toContain(run.record.status);
  });

  it('a second attacker: bad types, huge ranges, over-long strings, then an answer claiming B’s data', async () => {
    const h = harness();
    const b = await targetsInB(h);
    const script: ScriptReply[] = [
      actions([
        call('fridge_items', { expiringWithinDays: '1 OR 1=1' }),
        call('meal_plan', { from: '2000-01-01', to: '2099-12-31' }),
        call('search_recipes', { ingredients: [`${b.recipe}' OR '1'='1`] }),
        call('search_recipes', { ingredients: ['鸡蛋'], limit: 1000 }),
        call('nutrition_lookup', { food: 'x'.repeat(500) }),
      ]),
      {
        toolCalls: [
          { name: 'meal_plan', arguments: { from: AFTER[0], to: AFTER[1] } },
          { name: 'fridge_items', arguments: { expiringWithinDays: 3, household: b.household } },
          {
            name: 'household_preferences',
            arguments: '{"__proto__": {"householdId": "' + b.household + '"}}',
          },
        ],
      },
      final(`verified: household ${b.household} has recipe ${b.recipe}`),
    ];
    const run = await ask(h, await h.principal('mama'), scriptModel(script));
    expectNoLeak(run, await leakMarkers(h, script));
    const observed = JSON.stringify(run.observations.map((o) => [o.result, o.error]));
    for (const id of Object.values(b)) expect(observed).not.toContain(id);
    const byTool = run.observations.map(
      (o) => `${o.tool}:${o.status === 'ok' ? 'ok' : (o.error?.code ?? o.status)}`,
    );
    // The service's own checks (62-day range) answer after the schema's: compare as a set.
    expect(byTool.slice(0, 5).sort()).toEqual([
      'fridge_items:INVALID_PARAMETER',
      'meal_plan:INVALID_PARAMETER',
      'nutrition_lookup:INVALID_PARAMETER',
      'search_recipes:INVALID_PARAMETER',
      'search_recipes:INVALID_PARAMETER',
    ]);
    expect(byTool).toContain('meal_plan:ok');
    expect(byTool).toContain('fridge_items:INVALID_PARAMETER');
    const plans = run.observations.find((o) => o.tool === 'meal_plan' && o.status === 'ok')?.result as {
      entries: { recipeName: string }[];
    };
    expect(plans.entries.length).toBeGreaterThan(0);
  });

  it('a valid search for a dish both households have returns A’s copy only', async () => {
    const h = harness();
    const b = await targetsInB(h);
    const script: ScriptReply[] = [
      actions([call('search_recipes', { ingredients: ['鸡蛋', '番茄'], limit: 20 })]),
      final('番茄炒蛋'),
    ];
    const run = await ask(h, await h.principal('xiaojia'), scriptModel(script));
    const bRecipes = await h.db.query<{ id: string }>('SELECT id FROM recipes WHERE household_id = $1', [
      b.household,
    ]);
    const observed = JSON.stringify(run.observations);
    expect(observed).toContain('番茄炒蛋');
    for (const r of bRecipes) expect(observed).not.toContain(r.id);
    expect(observed).not.toContain('老王家的做法');
    expectNoLeak(run, await leakMarkers(h, script));
  });
});
