// A ratio over deterministic content, not a timing: the codec must give every recorded event
// back exactly and store the kitchen's runs in at most 40% of their plain JSON.
import { describe, expect, it } from 'vitest';
import { measureStorage, saved, withoutPrompts } from './measure.js';
import { recordKitchenRuns } from './record-runs.js';

describe('run storage over recorded kitchen runs', () => {
  it('decodes every body to its event and saves at least 60% against plain JSON lines', async () => {
    const recorded = await recordKitchenRuns();
    expect(recorded.length).toBeGreaterThanOrEqual(200);
    expect(new Set(recorded.map((r) => r.agent))).toEqual(new Set(['kitchen', 'kitchen-plan']));
    // Kept prompts (on by default) decode exactly too; they are model text already stored as a
    // delta (each message once per run), which the codec cannot shrink further: the ratio is
    // over the events without them (run.js prints what keeping them costs per run).
    expect(measureStorage(recorded).mismatches).toEqual([]);
    const runs = withoutPrompts(recorded);
    const { total, byAgent, mismatches } = measureStorage(runs);
    expect(mismatches).toEqual([]);
    expect(total.events).toBeGreaterThan(runs.length * 5);
    expect(saved(total)).toBeGreaterThanOrEqual(0.6);
    for (const tally of byAgent.values()) expect(saved(tally)).toBeGreaterThan(0.5);
  }, 120_000);
});
