// Regression tests for the bugs a review found in the hot-path refactors; each is named after its bug.
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type Model, type ModelRequest, type Observation, type RunRecord } from 'reins';
import { scriptModel } from 'reins/testing';
import { anchoredClock } from '../src/util/deps.js';
import { act, final } from './helpers.js';

const observations = (record: RunRecord): Observation[] =>
  record.steps.filter((s) => s.phase === 'observe').map((s) => s.detail.observation as Observation);

describe('a wrapper that copies the request or the tool context keeps the signal', () => {
  it('a model wrapper spreading the request passes a real signal, and nothing of the run leaks', async () => {
    const seen: ModelRequest[] = [];
    const inner = scriptModel([final('ok')]);
    const wrapper: Model = {
      name: 'wrapper',
      call: (request) => {
        seen.push(request);
        return inner.call({ ...request, messages: [...request.messages] });
      },
    };
    expect((await runAgent({ query: 'q', model: wrapper, tools: [] }).result).final_answer).toBe('ok');
    expect(inner.calls[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(Reflect.ownKeys(seen[0] ?? {}).sort()).toEqual([
      'finalStep',
      'messages',
      'onDelta',
      'runId',
      'signal',
      'step',
      'timeoutMs',
      'tools',
      'userKey', // the run's principal for sticky routing (undefined here: an anonymous run)
    ]);
  });

  it('a tool copying its context keeps the signal', async () => {
    let copied: unknown;
    const tool = defineTool({
      name: 'copy',
      description: 'copy',
      input: z.object({}),
      output: z.object({}),
      readOnly: true,
      run: (_input, ctx) => {
        copied = { ...ctx }.signal;
        return {};
      },
    });
    await runAgent({ query: 'q', model: scriptModel([act('copy', {}), final('x')]), tools: [tool] }).result;
    expect(copied).toBeInstanceOf(AbortSignal);
  });

  it('a tool context shows its four keys, nothing of the run, and an own signal accessor', async () => {
    let keys: (string | symbol)[] = [];
    let described: PropertyDescriptor | undefined;
    let signal: unknown;
    const tool = defineTool({
      name: 'look',
      description: 'look',
      input: z.object({}),
      output: z.object({}),
      readOnly: true,
      run: (_input, ctx) => {
        keys = Reflect.ownKeys(ctx);
        described = Object.getOwnPropertyDescriptor(ctx, 'signal');
        signal = ctx.signal;
        return {};
      },
    });
    await runAgent({ query: 'q', model: scriptModel([act('look', {}), final('x')]), tools: [tool] }).result;
    expect(keys.sort()).toEqual(['actId', 'principal', 'runId', 'signal']);
    expect(described).toMatchObject({ enumerable: true, set: undefined });
    expect(typeof described?.get).toBe('function');
    expect(signal).toBeInstanceOf(AbortSignal);
  });
});

describe('a cancel during an async tool’s synchronous part reaches the tool', () => {
  it('ends as CANCELLED at once, not at the tool timeout', async () => {
    const controller = new AbortController();
    let toolSawAbort = false;
    const tool = defineTool({
      name: 'eager',
      description: 'eager',
      input: z.object({}),
      output: z.object({}),
      readOnly: true,
      timeoutMs: 30_000,
      run: (_input, ctx) => {
        controller.abort(); // the run is cancelled before the tool returns its promise
        return new Promise<Record<string, never>>((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            toolSawAbort = true;
            reject(new Error('aborted'));
          });
          if (ctx.signal.aborted) {
            toolSawAbort = true;
            reject(new Error('aborted'));
          }
        });
      },
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('eager', {})]),
      tools: [tool],
      signal: controller.signal,
    });
    const record = await run.result;
    expect(record.status).toBe('cancelled');
    expect(observations(record)[0]?.error?.code).toBe('CANCELLED');
    expect(toolSawAbort).toBe(true);
  });
});

describe('an iterator with several next() calls in flight', () => {
  it('answers them in order and never ends early or yields after done', async () => {
    const run = runAgent({ query: 'q', model: scriptModel([{ text: final('x'), delayMs: 10 }]), tools: [] });
    const iterator = run[Symbol.asyncIterator]();
    const first = await iterator.next();
    const inFlight = [iterator.next(), iterator.next(), iterator.next(), iterator.next()];
    const results = await Promise.all(inFlight);
    expect(first.value?.type).toBe('start');
    expect(
      results.map((r) => (r.done ? 'END' : r.value.type === 'step' ? r.value.phase : r.value.type)),
    ).toEqual(['reason', 'message', 'done', 'END']);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});

describe('stray keys are judged by what the input schema accepts', () => {
  it('a schema that renames keys in a transform accepts its own keys', async () => {
    let received: unknown;
    const tool = defineTool({
      name: 'search',
      description: 'search',
      input: z.object({ q: z.string() }).transform(({ q }) => ({ query: q })),
      output: z.object({}),
      readOnly: true,
      run: (input) => {
        received = input;
        return {};
      },
    });
    const record = await runAgent({
      query: 'q',
      model: scriptModel([act('search', { q: 'x' }), final('ok')]),
      tools: [tool],
    }).result;
    expect(observations(record)[0]?.status).toBe('ok');
    expect(received).toEqual({ query: 'x' });
  });

  it('passthrough objects, records and union branches accept their keys; unknown ones are still refused', async () => {
    const tool = defineTool({
      name: 'flex',
      description: 'flex',
      input: z.object({
        tags: z.record(z.string(), z.number()),
        either: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
      }),
      output: z.object({}),
      readOnly: true,
      run: () => ({}),
    });
    const model = scriptModel([
      act('flex', { tags: { any: 1 }, either: { b: 2 } }),
      act('flex', { tags: {}, either: { b: 2, household_id: 9 } }),
      final('ok'),
    ]);
    const record = await runAgent({ query: 'q', model, tools: [tool] }).result;
    expect(observations(record).map((o) => o.status)).toEqual(['ok', 'rejected']);
    expect(observations(record)[1]?.error?.message).toContain('either.household_id');
  });
});

describe('the clock never runs backwards', () => {
  it('a wall clock stepped back at a re-anchor does not make time go back', () => {
    let wall = 1_000_000;
    let mono = 0;
    const now = anchoredClock(
      () => wall,
      () => mono,
    );
    const readings = [now()];
    mono = 1_500; // past the re-anchor interval
    wall = 1_000_000 + 1_500 - 50; // and the wall clock was stepped back by 50 ms
    readings.push(now());
    mono = 1_600;
    readings.push(now());
    expect(readings[1]).toBeGreaterThanOrEqual(readings[0] as number);
    expect(readings[2]).toBeGreaterThanOrEqual(readings[1] as number);
  });

  it('a monotonic clock that goes back (another clock now: fake timers) is followed from there', () => {
    let wall = 1_000_000;
    let mono = 5_000;
    const now = anchoredClock(
      () => wall,
      () => mono,
    );
    now();
    mono = 0; // a new clock, starting at 0
    wall = 1_000_100;
    const first = now();
    mono = 400;
    wall = 1_000_500;
    expect(now() - first).toBe(400); // durations are the new clock's, not 0 until it passes the old
  });

  it('the default clock follows fake timers installed after its first reading', () => {
    const now = anchoredClock();
    now(); // read once with the real clocks
    vi.useFakeTimers();
    try {
      const before = now();
      vi.advanceTimersByTime(5_000);
      expect(now() - before).toBeGreaterThanOrEqual(5_000);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('small contract edges', () => {
  it('a model returning a plain result (not a promise) still works', async () => {
    const plain = {
      name: 'plain',
      call: () => ({ ok: true, text: final('sync'), usage: { inputTokens: 1, outputTokens: 1 } }),
    };
    const record = await runAgent({ query: 'q', model: plain as unknown as Model, tools: [] }).result;
    expect(record.final_answer).toBe('sync');
  });

  it('a model whose call returns nothing ends the run as a model failure, with done', async () => {
    for (const returned of [undefined, null, 'text']) {
      const broken = { name: 'broken', call: () => returned };
      const run = runAgent({ query: 'q', model: broken as unknown as Model, tools: [] });
      const record = await run.result;
      expect(record.status).toBe('error');
      expect(record.error?.code).toBe('MODEL_FAILED');
      expect(record.error?.message).toContain('contract breach');
      expect(run.events.at(-1)?.type).toBe('done');
    }
  });

  it('inherited names are not limits', () => {
    const limits = JSON.parse('{"toString": 5}') as { maxSteps: number };
    expect(() => runAgent({ query: 'q', model: scriptModel([]), tools: [], limits })).toThrow(
      /unknown limit "toString"/,
    );
  });

  it('the record keeps stop_reason and error near the top of the JSON', async () => {
    const { tool } = {
      tool: defineTool({
        name: 'n',
        description: 'n',
        input: z.object({ i: z.number() }),
        output: z.object({}),
        readOnly: true,
        run: () => ({}),
      }),
    };
    const record = await runAgent({
      query: 'q',
      model: scriptModel([act('n', { i: 1 }), act('n', { i: 2 })]),
      tools: [tool],
      limits: { maxSteps: 2 },
    }).result;
    const keys = Object.keys(JSON.parse(JSON.stringify(record)) as object);
    expect(keys.indexOf('stop_reason')).toBe(keys.indexOf('status') + 1);
    expect(keys).not.toContain('error');
  });
});
