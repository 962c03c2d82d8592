import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ApprovalEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final } from './helpers.js';

/** A tool whose schema passes `list` on as it is, and which changes what it was given. */
function mutatingTool() {
  const calls: unknown[] = [];
  const tool = defineTool({
    name: 'shop',
    description: 'add to the shopping list',
    input: z.object({ list: z.any(), meta: z.unknown().optional() }),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    run: (input) => {
      calls.push(JSON.parse(JSON.stringify(input)));
      (input.list as string[]).push('changed by the tool');
      if (input.meta !== undefined) (input.meta as Record<string, unknown>)['touched'] = true;
      return { ok: true };
    },
  });
  return { tool, calls };
}

const actInputs = (events: readonly RunEvent[]) =>
  events.flatMap((e) => (e.type === 'step' && e.phase === 'act' ? [e.input] : []));

describe('a tool gets its own copy of the input', () => {
  it('a tool that changes its input changes neither the logged action nor the repeated-action guard', async () => {
    const { tool, calls } = mutatingTool();
    const input = { list: ['eggs'], meta: { from: 'fridge' } };
    const model = scriptModel([act('shop', input), act('shop', input), final('done')]);
    const run = runAgent({ query: 'q', model, tools: [tool], limits: { maxSteps: 5 } });
    await run.result;

    expect(calls).toEqual([{ list: ['eggs'], meta: { from: 'fridge' } }]); // the second, equal call was refused
    const refused = run.events.find((e) => e.type === 'step' && e.phase === 'observe' && e.index === 2);
    expect(refused?.type === 'step' && refused.phase === 'observe' && refused.observation.error?.code).toBe(
      'REPEATED_ACTION',
    );
    expect(actInputs(run.events)).toEqual([input, input]);
    expect(input).toEqual({ list: ['eggs'], meta: { from: 'fridge' } });
  });

  it('a different later call still runs: the copy is made per call', async () => {
    const { tool, calls } = mutatingTool();
    const model = scriptModel([
      act('shop', { list: ['eggs'] }),
      act('shop', { list: ['rice'] }),
      final('done'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [tool], limits: { maxSteps: 5 } });
    await run.result;
    expect(calls).toEqual([{ list: ['eggs'] }, { list: ['rice'] }]);
    expect(actInputs(run.events)).toEqual([{ list: ['eggs'] }, { list: ['rice'] }]);
  });

  it('after an approval, the tool changing its input changes neither the approval nor the act logged', async () => {
    const owner = { id: 'user-1' };
    const tool = defineTool({
      name: 'shop',
      description: 'add to the shopping list',
      input: z.object({ list: z.any() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: false, // needs approval
      run: (input) => {
        (input.list as string[]).push('changed by the tool');
        return { ok: true };
      },
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('shop', { list: ['eggs'] }), final('done')]),
      tools: [tool],
      principal: owner,
    });
    expect((await run.result).status).toBe('awaiting_approval');
    const approval = run.events.find((e) => e.type === 'approval') as ApprovalEvent;
    run.approve({ by: owner, actId: approval.actId, inputHash: approval.inputHash, approve: true });
    expect((await run.result).status).toBe('success');
    expect(approval.input).toEqual({ list: ['eggs'] });
    expect(actInputs(run.events)).toEqual([{ list: ['eggs'] }]);
  });

  it('after an approval, the tool runs with exactly the input approved (a default made again would differ)', async () => {
    const owner = { id: 'user-1' };
    let made = 0;
    const got: unknown[] = [];
    const tool = defineTool({
      name: 'send',
      description: 'send a note',
      input: z.object({ to: z.string(), ref: z.string().default(() => `ref-${++made}`) }),
      output: z.object({ ok: z.boolean() }),
      readOnly: false,
      run: (input) => {
        got.push(input);
        return { ok: true };
      },
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('send', { to: 'bob' }), final('sent')]),
      tools: [tool],
      principal: owner,
    });
    await run.result;
    const approval = run.events.find((e) => e.type === 'approval') as ApprovalEvent;
    run.approve({ by: owner, actId: approval.actId, inputHash: approval.inputHash, approve: true });
    expect((await run.result).status).toBe('success');
    expect(got).toEqual([approval.input]);
    expect(got[0]).not.toBe(approval.input);
  });

  it('a key named __proto__ stays an own key of the copy and never becomes its prototype', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'echo',
      description: 'echo',
      input: z.object({ meta: z.any() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      run: (input) => {
        seen.push(input.meta);
        return { ok: true };
      },
    });
    const raw = '{"thought":"t","action":"echo","input":{"meta":{"__proto__":{"polluted":1},"x":1}}}';
    const run = runAgent({ query: 'q', model: scriptModel([raw, final('ok')]), tools: [tool] });
    await run.result;
    const meta = seen[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(Object.hasOwn(meta, '__proto__')).toBe(true);
    expect((meta as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
