import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type Model, type ModelRequest, type ToolContext } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, collect, final, shape } from './helpers.js';

describe('streamed model text as progress events', () => {
  it('deltas become live progress steps of their step, before its reason event; the record keeps only reason/act/observe', async () => {
    let late: ModelRequest | undefined;
    const streaming: Model = {
      name: 'streaming',
      call: async (request) => {
        request.onDelta?.('{"thought":"t",');
        await Promise.resolve();
        request.onDelta?.('"final":"ok"}');
        late = request;
        return { ok: true, text: final('ok', 't'), usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const run = runAgent({ query: 'q', model: streaming, tools: [] });
    const events = await collect(run);
    expect(shape(events)).toEqual([
      'start',
      'step:progress',
      'step:progress',
      'step:reason',
      'message',
      'done',
    ]);
    expect(
      events
        .filter((e) => e.type === 'step' && e.phase === 'progress')
        .map((e) => (e as { text: string }).text),
    ).toEqual(['{"thought":"t",', '"final":"ok"}']);
    expect(events[1]).toMatchObject({ index: 1, source: 'model' });
    const record = await run.result;
    expect(record.steps.map((s) => s.phase)).toEqual(['reason']);
    late?.onDelta?.('after the end'); // ignored, no throw
    expect(run.events).toHaveLength(events.length);
  });
});

describe('the delta callback of a request copied by a wrapper', () => {
  it('still reports to the step the request was made for', async () => {
    const inner: Model = {
      name: 'inner',
      call: (request) => {
        request.onDelta?.(`step ${request.step}`);
        const text = request.step === 1 ? act('look', {}) : final('ok');
        return Promise.resolve({ ok: true, text, usage: { inputTokens: 1, outputTokens: 1 } });
      },
    };
    const wrapper: Model = { name: 'wrapper', call: (request) => inner.call({ ...request }) };
    const look = defineTool({
      name: 'look',
      description: 'look',
      input: z.object({}),
      output: z.object({}),
      readOnly: true,
      run: () => ({}),
    });
    const events = await collect(runAgent({ query: 'q', model: wrapper, tools: [look] }));
    const deltas = events.filter((e) => e.type === 'step' && e.phase === 'progress');
    expect(deltas.map((e) => [e.type === 'step' && e.index, (e as { text: string }).text])).toEqual([
      [1, 'step 1'],
      [2, 'step 2'],
    ]);
  });
});

describe("tools' progress reports as progress events", () => {
  it('become live progress steps of the act (sanitized, capped); reports after the call settled are dropped', async () => {
    let keep: ToolContext | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'reports progress',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      run: async (_input, ctx) => {
        keep = ctx;
        ctx.progress?.({ progress: 1, total: 3, message: 'call 13812345678 now' });
        await Promise.resolve();
        ctx.progress?.({ progress: 2, message: 'x'.repeat(1_000) });
        ctx.progress?.({ progress: Number.NaN });
        return { ok: true };
      },
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('slow', {}), final('ok')]),
      tools: [slow],
    });
    const events = await collect(run);
    expect(shape(events)).toEqual([
      'start',
      'step:reason',
      'step:act',
      'step:progress',
      'step:progress',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    const actId = (events[2] as { actId: string }).actId;
    expect(events[3]).toMatchObject({ index: 1, source: 'tool', tool: 'slow', actId, progress: 1, total: 3 });
    expect((events[3] as { message: string }).message).not.toContain('13812345678');
    expect((events[4] as { message: string }).message).toHaveLength(200);
    keep?.progress?.({ progress: 3 }); // after the call settled: dropped
    expect(run.events).toHaveLength(events.length);
    expect((await run.result).steps.map((s) => s.phase)).toEqual(['reason', 'act', 'observe', 'reason']);
  });
});

describe('tool spans (ctx.span) as progress events', () => {
  it('each named part of a call is a live event with its own times and outcome; the record keeps reason/act/observe', async () => {
    const multi = defineTool({
      name: 'multi',
      description: 'two parts',
      input: z.object({}),
      output: z.object({ n: z.number() }),
      readOnly: true,
      run: async (_input, ctx) => {
        const n = (await ctx.span?.('first part 13812345678', () => 2)) ?? 0;
        await ctx.span?.('second', async () => Promise.reject(new Error('x'))).catch(() => undefined);
        return { n };
      },
    });
    const run = runAgent({ query: 'q', model: scriptModel([act('multi', {}), final('ok')]), tools: [multi] });
    const events = await collect(run);
    const spans = events.filter((e) => e.type === 'step' && e.phase === 'progress');
    expect(spans).toMatchObject([
      { source: 'tool_span', tool: 'multi', ok: true, index: 1 },
      { source: 'tool_span', tool: 'multi', name: 'second', ok: false },
    ]);
    expect((spans[0] as { name: string }).name).not.toContain('13812345678');
    expect((await run.result).steps.map((s) => s.phase)).toEqual(['reason', 'act', 'observe', 'reason']);
  });
});
