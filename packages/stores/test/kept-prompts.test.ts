import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, keptPrompts, runAgent, runPlanAgent, type ReasonStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { sqlRunStore } from '@reins/stores';
import { openPglite, type TestDatabase } from './sql-store-fixtures.js';

const fridge = defineTool({
  name: 'fridge_items',
  description: 'What is in the fridge.',
  input: z.object({ place: z.string() }),
  output: z.object({ items: z.array(z.string()), owner: z.string() }),
  readOnly: true,
  run: ({ place }) => ({ items: ['番茄', '鸡蛋', place], owner: 'mama@example.com' }),
});
const act = (place: string) =>
  JSON.stringify({ thought: `look in ${place}`, action: 'fridge_items', input: { place } });

const sent = (message: { role: string; content: string }) => ({
  role: message.role,
  content: message.content,
});

describe('kept prompts in the durable run store (sqlRunStore on PGlite)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openPglite();
  }, 60_000);
  afterAll(async () => {
    await database?.close();
  });

  it('round-trips every reason step’s prompt through the run codec: the loaded log rebuilds what the model was sent, masked', async () => {
    const { schema } = await database.fresh();
    const store = await sqlRunStore(database.db, { schema });
    await store.create({ runId: 'p1', ownerId: 'o', agent: 'kitchen', request: {}, createdAt: 0 });
    const model = scriptModel([
      act('fridge'),
      act('freezer'),
      act('pantry'),
      JSON.stringify({ thought: 'ok', final: 'done' }),
    ]);
    const run = runAgent({
      runId: 'p1',
      query: 'what is there?',
      model,
      tools: [fridge],
      limits: { maxSteps: 4 },
      durable: { sink: (events) => store.append('p1', events) },
    });
    await run.result;
    expect(await run.persisted()).toBe(true);

    const loaded = (await store.load('p1'))?.events ?? [];
    const reasons = loaded.filter((e): e is ReasonStep => e.type === 'step' && e.phase === 'reason');
    expect(reasons.map((e) => e.prompt?.count)).toEqual(model.calls.map((c) => c.messages.length));
    const kept = keptPrompts(loaded);
    expect(kept.map((k) => k.messages.map(sent))).toEqual(model.calls.map((c) => c.messages.map(sent)));
    expect(JSON.stringify(loaded)).not.toContain('mama@example.com');
    expect(kept[3]?.messages.some((m) => m.content.includes('m***@example.com'))).toBe(true);
    // The same JSON as the live events (the codec keeps the exact JSON of each event).
    expect(JSON.parse(JSON.stringify(loaded))).toEqual(JSON.parse(JSON.stringify(run.events)));
  });

  it('round-trips a plan run’s prompts too: the planner’s on its plan version, the responder’s on its reason step', async () => {
    const { schema } = await database.fresh();
    const store = await sqlRunStore(database.db, { schema });
    await store.create({ runId: 'p2', ownerId: 'o', agent: 'planner', request: {}, createdAt: 0 });
    const steps = ['fridge', 'freezer'].map((place, i) => ({
      id: `s${i + 1}`,
      action: 'fridge_items',
      input: { place },
      dependsOn: [],
    }));
    const model = scriptModel([
      JSON.stringify({ thought: 'look in both', steps }),
      JSON.stringify({ thought: 'ok', final: 'tomatoes and eggs' }),
    ]);
    const run = runPlanAgent({
      runId: 'p2',
      query: 'what is there?',
      model,
      tools: [fridge],
      durable: { sink: (events) => store.append('p2', events) },
    });
    expect((await run.result).status).toBe('success');
    expect(await run.persisted()).toBe(true);

    const loaded = (await store.load('p2'))?.events ?? [];
    const prompted = loaded.flatMap((e) =>
      e.type === 'step' && 'prompt' in e ? [`${e.phase}:${e.index}`] : [],
    );
    expect(prompted).toEqual(['plan:1', 'reason:2']);
    const kept = keptPrompts(loaded);
    expect(kept.map((k) => k.messages.map(sent))).toEqual(model.calls.map((c) => c.messages.map(sent)));
    expect(JSON.stringify(loaded)).not.toContain('mama@example.com');
    expect(kept[1]?.messages.some((m) => m.content.includes('m***@example.com'))).toBe(true);
    expect(JSON.parse(JSON.stringify(loaded))).toEqual(JSON.parse(JSON.stringify(run.events)));
  });
});
