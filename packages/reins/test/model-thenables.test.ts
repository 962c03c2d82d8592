import { describe, expect, it } from 'vitest';
import { runAgent, type Model, type ModelResult } from '../src/index.js';
import { blankTool } from './helpers.js';

// The loop settles a model step through callbacks, not `await`: a model's result that is a
// thenable but not a native promise must still settle the step once, and never synchronously.

const usage = { inputTokens: 1, outputTokens: 1 };
const said = (text: string): ModelResult => ({ ok: true, text, usage });
const ACT = '{"action":"note","input":{}}';
const FINAL = '{"final":"done"}';

function noteTool(calls: unknown[]) {
  return blankTool('note', {
    run: () => {
      calls.push('ran');
      return {};
    },
  });
}

/** A model whose replies come as hand-made thenables, made by `thenable(reply)`. */
function thenableModel(replies: string[], thenable: (reply: ModelResult) => PromiseLike<ModelResult>): Model {
  let next = 0;
  // The contract says a promise; an adapter may hand back any thenable (typed as a promise here).
  return { name: 'thenable', call: () => thenable(said(replies[next++] ?? FINAL)) as Promise<ModelResult> };
}

describe('a model step that settles through a hand-made thenable', () => {
  it('settles once, when the thenable calls back twice and then fails', async () => {
    const calls: unknown[] = [];
    const model = thenableModel([ACT, FINAL], (reply) => ({
      then(onFulfilled, onRejected) {
        setTimeout(() => {
          onFulfilled?.(reply);
          onFulfilled?.(reply);
          onRejected?.(new Error('late failure'));
        }, 1);
        return Promise.resolve() as never;
      },
    }));
    const record = await runAgent({ query: 'q', model, tools: [noteTool(calls)] }).result;
    expect(record.status).toBe('success');
    expect(record.model_steps).toBe(2);
    expect(calls).toHaveLength(1);
    expect(record.steps.map((s) => s.phase)).toEqual(['reason', 'act', 'observe', 'reason']);
  });

  it('never goes on synchronously, even when the thenable calls back at once', async () => {
    const model = thenableModel([FINAL], (reply) => ({
      then(onFulfilled) {
        onFulfilled?.(reply);
        return Promise.resolve() as never;
      },
    }));
    const run = runAgent({ query: 'q', model, tools: [] });
    expect(run.events.map((e) => e.type)).toEqual(['start']);
    expect((await run.result).status).toBe('success');
  });

  it('a thenable whose then throws is a broken adapter: the run ends as a model failure, as data', async () => {
    const model = thenableModel([FINAL], () => ({
      then() {
        throw new Error('then exploded');
      },
    }));
    const record = await runAgent({ query: 'q', model, tools: [] }).result;
    expect(record.status).toBe('error');
    expect(record.error?.code).toBe('MODEL_FAILED');
    expect(record.error?.message).toContain('then exploded');
  });

  it('a rejected model call ends the run as a model failure, as data', async () => {
    const model: Model = { name: 'rejecting', call: () => Promise.reject(new Error('adapter rejected')) };
    const record = await runAgent({ query: 'q', model, tools: [] }).result;
    expect(record.status).toBe('error');
    expect(record.error?.code).toBe('MODEL_FAILED');
    expect(record.error?.message).toContain('contract breach');
    expect(record.error?.message).toContain('adapter rejected');
  });
});
