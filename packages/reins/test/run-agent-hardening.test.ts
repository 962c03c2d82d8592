import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  runAgent,
  type AnyTool,
  type Model,
  type Observation,
  type RunDeps,
  type RunRecord,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final, hangingTool } from './helpers.js';

const observations = (record: RunRecord): Observation[] =>
  record.steps.filter((s) => s.phase === 'observe').map((s) => s.detail.observation as Observation);

/** A model whose call never settles and ignores its signal (a broken adapter). */
const deafModel: Model = { name: 'deaf', call: () => new Promise(() => {}) };

describe('a model that ignores its signal', () => {
  it('still ends at the deadline', async () => {
    const record = await runAgent({ query: 'q', model: deafModel, tools: [], limits: { deadlineMs: 20 } })
      .result;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'deadline' });
  });

  it('still ends on cancel()', async () => {
    const run = runAgent({ query: 'q', model: deafModel, tools: [] });
    setTimeout(() => run.cancel(), 5);
    expect((await run.result).status).toBe('cancelled');
  });

  it('ends at cancel(), and its late answer is dropped: no tool runs, nothing follows done', async () => {
    let answer: (text: string) => void = () => undefined;
    const late: Model = {
      name: 'late',
      call: () =>
        new Promise((resolve) => {
          answer = (text) => resolve({ ok: true, text, usage: { inputTokens: 1, outputTokens: 1 } });
        }),
    };
    const calls: unknown[] = [];
    const tool = defineTool({
      name: 'note',
      description: 'note',
      input: z.object({}),
      output: z.object({}),
      readOnly: true,
      run: (input) => {
        calls.push(input);
        return {};
      },
    });
    const run = runAgent({ query: 'q', model: late, tools: [tool] });
    await new Promise((resolve) => setTimeout(resolve, 1));
    run.cancel();
    expect(run.events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled', steps: 0 });
    answer(act('note', {}));
    const record = await run.result;
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(calls).toEqual([]);
    expect(record).toMatchObject({ status: 'cancelled', usage: { input_tokens: 0, output_tokens: 0 } });
    expect(run.events.map((e) => e.type)).toEqual(['start', 'done']);
  });
});

describe('a value the loop cannot handle ends the run, never hangs it', () => {
  /** Replies in order; the reply at `breakAt` has a `usage` that throws `thrown` when read. */
  const breakingModel = (replies: string[], breakAt: number, thrown: unknown): Model => {
    let call = 0;
    return {
      name: 'breaking',
      call: () => {
        const text = replies[call] ?? '';
        const usage = { inputTokens: 2, outputTokens: 1 };
        const result =
          ++call === breakAt
            ? {
                ok: true as const,
                text,
                get usage(): typeof usage {
                  throw thrown;
                },
              }
            : { ok: true as const, text, usage };
        return Promise.resolve(result);
      },
    };
  };
  const look = defineTool({
    name: 'look',
    description: 'look',
    input: z.object({}),
    output: z.object({}),
    readOnly: true,
    run: () => ({}),
  });

  it('with an error event and done(error) that keep the steps and usage so far', async () => {
    const model = breakingModel([act('look', {}), final('x')], 2, new Error('broken usage'));
    const run = runAgent({ query: 'q', model, tools: [look] });
    const record = await run.result;
    expect(run.events.slice(-2)).toMatchObject([
      { type: 'error', code: 'INTERNAL', message: 'reins loop failed: broken usage' },
      { type: 'done', status: 'error', steps: 1, usage: { inputTokens: 2, outputTokens: 1 } },
    ]);
    expect(record).toMatchObject({ status: 'error', model_steps: 1 });
  });

  it('and when even ending it fails, the last resort still ends the log', async () => {
    const unprintable = {
      toJSON(): never {
        throw new Error('cannot describe it');
      },
    };
    const run = runAgent({ query: 'q', model: breakingModel([final('x')], 1, unprintable), tools: [] });
    expect((await run.result).status).toBe('error');
    expect(run.events.slice(-2)).toMatchObject([
      { type: 'error', code: 'INTERNAL', message: 'reins loop failed: cannot describe it' },
      { type: 'done', status: 'error', steps: 0, durationMs: 0 },
    ]);
  });
});

describe('input strictness does not depend on how the tool was declared', () => {
  const plain: AnyTool = {
    // Not built with defineTool, and its schemas are not strict: keys must still not be dropped silently.
    name: 'lookup',
    description: 'lookup',
    input: z.object({ filter: z.object({ name: z.string() }) }),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    run: () => ({ ok: true }),
  };

  it('refuses a top-level key the schema would strip', async () => {
    const model = scriptModel([act('lookup', { filter: { name: 'a' }, space_id: 7 }), final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [plain] }).result;
    expect(observations(record)[0]).toMatchObject({
      status: 'rejected',
      error: { code: 'INVALID_PARAMETER' },
    });
    expect(observations(record)[0]?.error?.details).toEqual([
      { path: 'space_id', message: 'unknown key "space_id"' },
    ]);
  });

  it("a refused key does not carry over to the next call's check (stray keys are collected in one shared array)", async () => {
    const model = scriptModel([
      act('lookup', { filter: { name: 'a' }, space_id: 7 }),
      act('lookup', { filter: { name: 'b' } }),
      final('x'),
    ]);
    const record = await runAgent({ query: 'q', model, tools: [plain] }).result;
    expect(observations(record).map((o) => o.status)).toEqual(['rejected', 'ok']);
  });

  it('refuses a nested key the schema would strip', async () => {
    const model = scriptModel([act('lookup', { filter: { name: 'a', household_id: 2 } }), final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [plain] }).result;
    expect(observations(record)[0]?.error?.message).toContain('filter.household_id');
  });
});

describe('schemas and results that cannot be handled are observations, not crashes', () => {
  it('an async refinement in an input schema is INVALID_PARAMETER and the run goes on', async () => {
    const tool = defineTool({
      name: 'odd',
      description: 'odd',
      input: z.object({ n: z.number().refine(async () => true) }),
      output: z.object({}),
      readOnly: true,
      run: () => ({}),
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('odd', { n: 1 }), final('ok')]),
      tools: [tool],
    });
    const record = await run.result;
    expect(observations(record)[0]).toMatchObject({
      status: 'rejected',
      error: { code: 'INVALID_PARAMETER' },
    });
    expect(record).toMatchObject({ status: 'success', final_answer: 'ok' });
  });

  it('a result JSON cannot carry (BigInt) is INVALID_OUTPUT', async () => {
    const tool = defineTool({
      name: 'big',
      description: 'big',
      input: z.object({}),
      output: z.object({ n: z.bigint() }),
      readOnly: true,
      run: () => ({ n: 10n }),
    });
    const record = await runAgent({
      query: 'q',
      model: scriptModel([act('big', {}), final('ok')]),
      tools: [tool],
    }).result;
    expect(observations(record)[0]).toMatchObject({
      status: 'error',
      error: { code: 'INVALID_OUTPUT', layer: 'schema' },
    });
    expect(record.status).toBe('success');
  });
});

describe('abort reasons a tool can use', () => {
  it('a tool timeout aborts ctx.signal with a TimeoutError DOMException', async () => {
    let reason: unknown;
    const tool = defineTool({
      name: 'slow',
      description: 'slow',
      input: z.object({}),
      output: z.object({}),
      readOnly: true,
      timeoutMs: 10,
      run: (_input, ctx) =>
        new Promise<Record<string, never>>((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            reject(ctx.signal.reason as Error);
          });
        }),
    });
    await runAgent({ query: 'q', model: scriptModel([act('slow', {}), final('x')]), tools: [tool] }).result;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });

  it('the run deadline during a tool call is a TIMEOUT observation', async () => {
    const { tool } = hangingTool({ timeoutMs: 100 });
    const run = runAgent({
      query: 'q',
      model: scriptModel([{ text: act('hang', {}), delayMs: 100 }]),
      tools: [tool],
      limits: { deadlineMs: 160, modelTimeoutMs: 150 },
    });
    const record = await run.result;
    expect(observations(record)[0]).toMatchObject({ status: 'timeout', error: { code: 'TIMEOUT' } });
    expect(observations(record)[0]?.error?.message).toContain('deadline');
  });
});

describe('extraction', () => {
  it('skips an example object that is not a decision and takes the decision after it', async () => {
    const text = 'I will call search with {"q":"cats"} like this: {"thought":"t","final":"found cats"}';
    const record = await runAgent({ query: 'q', model: scriptModel([text]), tools: [] }).result;
    expect(record).toMatchObject({ format: 'structured', final_answer: 'found cats' });
  });
});

describe('timer limits', () => {
  it('refuses timeouts a JavaScript timer cannot honour', () => {
    const model = scriptModel([]);
    expect(() => runAgent({ query: 'q', model, tools: [], limits: { deadlineMs: 3e9 } })).toThrow(RangeError);
    expect(() => defineTool({ ...hangingTool().tool, timeoutMs: 3e9 })).toThrow(/timeoutMs/);
  });
});

describe('cleanup', () => {
  it('every timer and abort listener a run sets is removed again', async () => {
    let timers = 0;
    const deps: Partial<RunDeps> = {
      setTimer: (callback, ms) => {
        timers++;
        return setTimeout(callback, ms);
      },
      clearTimer: (handle) => {
        timers--;
        clearTimeout(handle as ReturnType<typeof setTimeout>);
      },
    };
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof add;
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners--;
      remove(...args);
    }) as typeof remove;
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      input: z.object({ n: z.number() }),
      output: z.object({ n: z.number() }),
      readOnly: true,
      run: async ({ n }) => ({ n }),
    });
    for (let i = 0; i < 20; i++) {
      const model = scriptModel([act('slow', { n: 1 }), act('slow', { n: 2 }), final('x')]);
      await runAgent({ query: 'q', model, tools: [slow], deps, signal: controller.signal }).result;
    }
    expect(timers).toBe(0);
    expect(listeners).toBe(0);
  });
});
