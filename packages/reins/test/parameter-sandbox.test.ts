import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ObserveStep, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final } from './helpers.js';

function recorder() {
  const seen: unknown[] = [];
  const tool = defineTool({
    name: 'note',
    description: 'store a note',
    input: z.object({
      title: z.string(),
      body: z.string().max(500).optional(),
      tags: z.array(z.string()).optional(),
      servings: z.number().int().min(1).max(20).optional(),
    }),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    run: (input) => {
      seen.push(input);
      return { ok: true };
    },
  });
  return { tool, seen };
}

const observation = (events: readonly RunEvent[]) =>
  (events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep).observation;

async function once(input: Record<string, unknown>, limits = {}) {
  const { tool, seen } = recorder();
  const run = runAgent({
    query: 'q',
    model: scriptModel([act('note', input), final('ok')]),
    tools: [tool],
    limits,
  });
  await run.result;
  return { seen, observation: observation(run.events) };
}

describe('parameter sandbox', () => {
  it('trims every model-written string, at any depth, before the tool sees it', async () => {
    const { seen } = await once({ title: '  番茄炒蛋 \n', tags: [' quick ', 'home'] });
    expect(seen).toEqual([{ title: '番茄炒蛋', tags: ['quick', 'home'] }]);
  });

  it('caps a string without its own limit at 100 characters (after trimming); the tool never runs', async () => {
    expect((await once({ title: `  ${'x'.repeat(100)}  ` })).seen).toHaveLength(1);
    const { seen, observation: o } = await once({ title: 'x'.repeat(101) });
    expect(seen).toHaveLength(0);
    expect(o.error).toMatchObject({ code: 'INVALID_PARAMETER', layer: 'input' });
    expect(o.error?.message).toContain('title: too long: 101 characters');
    const nested = await once({ title: 't', tags: ['ok', 'y'.repeat(150)] });
    expect(nested.observation.error?.message).toContain('tags[1]: too long');
  });

  it("a schema's own maxLength wins over the default cap", async () => {
    expect((await once({ title: 't', body: 'b'.repeat(400) })).seen).toHaveLength(1);
    const { observation: o } = await once({ title: 't', body: 'b'.repeat(501) });
    expect(o.error?.code).toBe('INVALID_PARAMETER');
  });

  it('numbers are range-checked by the schema; unknown keys are rejected', async () => {
    expect((await once({ title: 't', servings: 0 })).observation.error?.code).toBe('INVALID_PARAMETER');
    expect((await once({ title: 't', servings: 21 })).observation.error?.code).toBe('INVALID_PARAMETER');
    const stray = await once({ title: 't', household_id: 'h2' });
    expect(stray.seen).toHaveLength(0);
    expect(stray.observation.error?.message).toContain('household_id');
  });

  it("one act's refusal does not carry over to the next (the issues are collected in one shared array)", async () => {
    const tooLong = await once({ title: 'x'.repeat(101) });
    const stray = await once({ title: 't', household_id: 'h2' });
    expect(stray.observation.error?.message).toContain('household_id');
    expect(stray.observation.error?.message).not.toContain('too long');
    const fine = await once({ title: 'ok' });
    expect(fine.seen).toEqual([{ title: 'ok' }]);
    expect(fine.observation.status).toBe('ok');
    // The first refusal's issues are its own: what a later act collected did not change them.
    expect(tooLong.observation.error?.details).toEqual([
      { path: 'title', message: 'too long: 101 characters, at most 100 for a string without its own limit' },
    ]);
    expect(stray.observation.error?.details).toHaveLength(1);
  });

  it('the cap is configuration (maxStringChars)', async () => {
    const { observation: o } = await once({ title: 'twelve chars' }, { maxStringChars: 10 });
    expect(o.error?.message).toContain('at most 10');
  });
});
