import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ActStep, type ObserveStep, type ReasonStep, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final } from './helpers.js';

const many = (calls: { action: string; input: Record<string, unknown> }[], thought = 'several'): string =>
  JSON.stringify({ thought, actions: calls });

/** Tools that take `ms` to answer and log when each call starts and ends, with the peak overlap. */
function timedTools() {
  const log: string[] = [];
  let inFlight = 0;
  const stats = { peak: 0 };
  const make = (name: string, readOnly: boolean) =>
    defineTool({
      name,
      description: name,
      input: z.object({ id: z.string(), ms: z.number().default(20) }),
      output: z.object({ id: z.string() }),
      readOnly,
      needsApproval: false, // these tests are about ordering, not approval
      run: async ({ id, ms }) => {
        log.push(`start ${id}`);
        stats.peak = Math.max(stats.peak, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, ms));
        inFlight--;
        log.push(`end ${id}`);
        return { id };
      },
    });
  return { read: make('read', true), write: make('write', false), log, stats };
}

const steps = <P extends string>(events: readonly RunEvent[], phase: P) =>
  events.filter((e) => e.type === 'step' && e.phase === phase) as Extract<
    RunEvent,
    { type: 'step'; phase: P }
  >[];

describe('several tool calls in one step', () => {
  it('runs independent read-only calls side by side and shows every observation in call order', async () => {
    const { read, log, stats } = timedTools();
    const model = scriptModel([
      many([
        // 100 ms apart: the finishing order holds even when a loaded machine staggers the starts.
        { action: 'read', input: { id: 'a', ms: 300 } },
        { action: 'read', input: { id: 'b', ms: 100 } },
        { action: 'read', input: { id: 'c', ms: 200 } },
      ]),
      final('done'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [read] });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(stats.peak).toBe(3);
    expect(log.slice(0, 3)).toEqual(['start a', 'start b', 'start c']);
    const acts = steps(run.events, 'act') as ActStep[];
    const observes = steps(run.events, 'observe') as ObserveStep[];
    expect(acts.map((a) => a.index)).toEqual([1, 1, 1]);
    expect(new Set(acts.map((a) => a.actId)).size).toBe(3);
    // Observations arrive as calls finish; each pairs with its act by id.
    expect(observes.map((o) => o.observation.result)).toEqual([{ id: 'b' }, { id: 'c' }, { id: 'a' }]);
    for (const o of observes) expect(acts.find((a) => a.actId === o.actId)?.tool).toBe('read');
    // The next prompt lists them in the order the model asked for them.
    const lastUser = model.calls[1]?.messages.at(-1)?.content ?? '';
    expect(lastUser.indexOf('"id":"a"')).toBeLessThan(lastUser.indexOf('"id":"b"'));
    expect(lastUser.indexOf('"id":"b"')).toBeLessThan(lastUser.indexOf('"id":"c"'));
    expect(model.calls[1]?.messages.at(-2)?.content).toContain('"actions"');
  });

  it('never runs more than toolConcurrency read-only calls at once', async () => {
    const { read, stats } = timedTools();
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const model = scriptModel([many(ids.map((id) => ({ action: 'read', input: { id } }))), final('done')]);
    const record = await runAgent({ query: 'q', model, tools: [read], limits: { toolConcurrency: 2 } })
      .result;
    expect(record.status).toBe('success');
    expect(stats.peak).toBe(2);
    expect(record.steps.filter((s) => s.phase === 'observe')).toHaveLength(5);
  });

  it('a call that may change something waits for the calls before it and runs alone', async () => {
    const { read, write, log, stats } = timedTools();
    const model = scriptModel([
      many([
        { action: 'read', input: { id: 'r1' } },
        { action: 'read', input: { id: 'r2' } },
        { action: 'write', input: { id: 'w' } },
        { action: 'read', input: { id: 'r3' } },
      ]),
      final('done'),
    ]);
    await runAgent({ query: 'q', model, tools: [read, write] }).result;
    const at = (entry: string) => log.indexOf(entry);
    expect(at('start w')).toBeGreaterThan(at('end r1'));
    expect(at('start w')).toBeGreaterThan(at('end r2'));
    expect(at('start r3')).toBeGreaterThan(at('end w'));
    expect(stats.peak).toBe(2);
  });

  it('refuses calls beyond maxCallsPerStep without running them, and says so', async () => {
    const { read, log } = timedTools();
    const ids = ['a', 'b', 'c'];
    const model = scriptModel([
      many(ids.map((id) => ({ action: 'read', input: { id, ms: 1 } }))),
      final('ok'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [read], limits: { maxCallsPerStep: 2 } });
    await run.result;
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start a', 'start b']);
    const refused = (steps(run.events, 'observe') as ObserveStep[]).find(
      (o) => o.observation.status === 'rejected',
    );
    expect(refused?.observation.error).toMatchObject({ code: 'LIMIT_EXCEEDED', layer: 'guard' });
    expect(refused?.observation.error?.message).toContain('at most 2 tool calls per step');
  });

  it('the same call twice in one step runs once; the step after is the final one', async () => {
    const { read, log } = timedTools();
    const model = scriptModel([
      many([
        { action: 'read', input: { id: 'a', ms: 1 } },
        { action: 'read', input: { ms: 1, id: 'a' } },
      ]),
      final('answer'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [read] });
    const record = await run.result;
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start a']);
    const codes = (steps(run.events, 'observe') as ObserveStep[]).map((o) => o.observation.error?.code);
    expect(codes).toContain('REPEATED_ACTION');
    expect(model.calls[1]?.tools).toEqual([]); // forced final step: no tools offered
    expect(record.final_answer).toBe('answer');
  });

  it('a call repeating an earlier step is refused while its new siblings run', async () => {
    const { read, log } = timedTools();
    const model = scriptModel([
      act('read', { id: 'a', ms: 1 }),
      many([
        { action: 'read', input: { id: 'a', ms: 1 } },
        { action: 'read', input: { id: 'b', ms: 1 } },
      ]),
      final('answer'),
    ]);
    await runAgent({ query: 'q', model, tools: [read] }).result;
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start a', 'start b']);
  });

  it('cancel while calls run: no later call starts and the run ends cancelled', async () => {
    const { read, write, log } = timedTools();
    const model = scriptModel([
      many([
        { action: 'read', input: { id: 'r1', ms: 200 } },
        { action: 'write', input: { id: 'w' } },
      ]),
      final('never'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [read, write] });
    setTimeout(() => run.cancel(), 20);
    const record = await run.result;
    expect(record.status).toBe('cancelled');
    expect(log).not.toContain('start w');
    expect(model.calls).toHaveLength(1);
  });
});

describe('native tool calls', () => {
  const add = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
    readOnly: true,
    run: ({ a, b }) => ({ sum: a + b }),
  });

  it('become one decision (via "native"); the history sends them back as tool messages', async () => {
    const model = scriptModel([
      {
        text: 'adding twice',
        toolCalls: [
          { id: 'call_A', name: 'add', arguments: '{"a":1,"b":2}' },
          { id: 'call_B', name: 'add', arguments: { a: 3, b: 4 } },
        ],
      },
      final('3 and 7'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [add], limits: { maxSteps: 3 } });
    const record = await run.result;
    expect(record.final_answer).toBe('3 and 7');
    const reason = steps(run.events, 'reason')[0] as ReasonStep;
    expect(reason.parse).toEqual({ ok: true, via: 'native' });
    expect(reason.raw).toBe('adding twice');
    expect(reason.decision).toMatchObject({
      kind: 'actions',
      thought: 'adding twice',
      actions: [
        { action: 'add', input: { a: 1, b: 2 }, callId: 'call_A' },
        { action: 'add', input: { a: 3, b: 4 }, callId: 'call_B' },
      ],
    });
    expect(record.steps[0]?.detail.tool_calls).toHaveLength(2);

    const second = model.calls[1]?.messages ?? [];
    const assistant = second.find((m) => m.role === 'assistant');
    expect(assistant).toMatchObject({
      content: 'adding twice',
      toolCalls: [{ id: 'call_A' }, { id: 'call_B' }],
    });
    const tools = second.filter((m) => m.role === 'tool');
    expect(tools.map((m) => (m.role === 'tool' ? m.toolCallId : ''))).toEqual(['call_A', 'call_B']);
    expect(tools[0]?.content).toContain('"sum":3');
    expect(tools[1]?.content).toContain('"sum":7');
  });

  it('on the last step the same history goes as plain text: no tool messages without tools', async () => {
    const model = scriptModel([
      { toolCalls: [{ id: 'c1', name: 'add', arguments: '{"a":1,"b":1}' }] },
      final('2'),
    ]);
    await runAgent({ query: 'q', model, tools: [add], limits: { maxSteps: 2 } }).result;
    const last = model.calls[1];
    expect(last?.finalStep).toBe(true);
    expect(last?.tools).toEqual([]);
    expect(last?.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls))).toBe(
      false,
    );
    expect(last?.messages.at(-1)?.content).toContain('"sum":2');
    expect(last?.messages.at(-2)?.content).toContain('"actions"');
  });

  it('arguments that are not JSON even after one repair are refused; the tool never runs', async () => {
    let ran = 0;
    const counted = defineTool({ ...add, name: 'count', run: (i) => (ran++, { sum: i.a + i.b }) });
    const model = scriptModel([
      { toolCalls: [{ id: 'c1', name: 'count', arguments: 'a plus b' }] },
      { toolCalls: [{ id: 'c2', name: 'count', arguments: '{"a":1,"b":2,"space_id":9}' }] },
      final('gave up'),
    ]);
    const run = runAgent({ query: 'q', model, tools: [counted] });
    await run.result;
    expect(ran).toBe(0);
    const errors = (steps(run.events, 'observe') as ObserveStep[]).map((o) => o.observation.error);
    expect(errors[0]).toMatchObject({ code: 'INVALID_PARAMETER', layer: 'input' });
    expect(errors[0]?.message).toContain('not a JSON object');
    expect(errors[1]).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(errors[1]?.message).toContain('space_id');
  });

  it('repairs arguments once (a truncated object) like any model text', async () => {
    const model = scriptModel([{ toolCalls: [{ name: 'add', arguments: '{"a": 2, "b": 5' }] }, final('7')]);
    const run = runAgent({ query: 'q', model, tools: [add] });
    await run.result;
    const observe = steps(run.events, 'observe')[0] as ObserveStep;
    expect(observe.observation).toMatchObject({ status: 'ok', result: { sum: 7 } });
  });

  it('tool calls on the last step (no tools offered) stop the run at max_steps', async () => {
    const model = scriptModel([{ toolCalls: [{ name: 'add', arguments: '{"a":1,"b":1}' }] }]);
    const record = await runAgent({ query: 'q', model, tools: [add], limits: { maxSteps: 1 } }).result;
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('max_steps');
  });
});
