import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, runPlanAgent, type Model, type ModelRequest } from '../src/index.js';
import { final } from './helpers.js';

const look = defineTool({
  name: 'look',
  description: 'Looks.',
  input: z.object({}),
  output: z.object({}),
  readOnly: true,
  run: () => ({}),
});
const write = defineTool({
  name: 'write',
  description: 'Writes.',
  input: z.object({}),
  output: z.object({}),
  readOnly: false,
  run: () => ({}),
});

/** A composed model as a stack builds it: it says its composition and each reply's route. */
function routed(replies: string[]): { model: Model; seen: ModelRequest[] } {
  const seen: ModelRequest[] = [];
  const model: Model = {
    name: 'stacked',
    stack: 'retries 2 per model; chain a → b',
    call: async (request) => {
      seen.push(request);
      const text = replies.shift() ?? final('none left');
      return {
        ok: true,
        text,
        usage: { inputTokens: 1, outputTokens: 1 },
        route: `route of step ${request.step}`,
      };
    },
  };
  return { model, seen };
}

describe('which model answered and why', () => {
  it('the loop copies a reply route to the reason event and the record; start says the stack', async () => {
    const { model, seen } = routed([final('ok')]);
    const run = runAgent({ query: 'q', model, tools: [look, write], principal: { id: 'user-7' } });
    const record = await run.result;
    expect(run.events.find((e) => e.type === 'start')).toMatchObject({
      modelStack: 'retries 2 per model; chain a → b',
    });
    expect(run.events.find((e) => e.type === 'step' && e.phase === 'reason')).toMatchObject({
      route: 'route of step 1',
    });
    expect(record.model_stack).toBe('retries 2 per model; chain a → b');
    expect(record.steps[0]?.detail.route).toBe('route of step 1');
    // The request names the user (sticky routing) and which offered tools are read-only.
    expect(seen[0]?.userKey).toBe('user-7');
    expect(seen[0]?.tools.map((t) => [t.name, t.readOnly])).toEqual([
      ['look', true],
      ['write', false],
    ]);
  });

  it('an anonymous run has no user key; a bare model adds no modelStack nor route', async () => {
    const seen: ModelRequest[] = [];
    const bare: Model = {
      name: 'bare',
      call: async (request) => {
        seen.push(request);
        return { ok: true, text: final('ok'), usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const run = runAgent({ query: 'q', model: bare, tools: [] });
    const record = await run.result;
    expect(seen[0]?.userKey).toBeUndefined();
    expect(JSON.stringify(run.events)).not.toContain('modelStack');
    expect(JSON.stringify(record)).not.toContain('route');
    expect(JSON.stringify(record)).not.toContain('model_stack');
  });

  it('the plan agent names the user too', async () => {
    const { model, seen } = routed([JSON.stringify({ thought: 't', steps: [] }), final('planned')]);
    await runPlanAgent({ query: 'q', model, tools: [look], principal: { id: 'user-8' } }).result;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.userKey === 'user-8')).toBe(true);
  });
});
