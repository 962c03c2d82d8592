// @ts-check
/**
 * The scale-out bench's agents. Their model is a stand-in for a real one: each step sleeps
 * (honouring the abort signal, as a real adapter must), then decides from the request's
 * messages alone — no tool observation yet: call the tool; an observation of it: answer. So
 * any worker can take any step, and a run rebuilt from its log (after a pause, on another
 * worker) decides exactly as the first worker would have.
 */
import { clearTimeout, setTimeout } from 'node:timers';
import { z } from 'zod';
import { defineTool } from 'reins';

/** @typedef {import('reins').Model} Model @typedef {import('reins').ModelRequest} ModelRequest */
/** @typedef {import('reins').ModelResult} ModelResult */

/**
 * Resolves `true` after `ms`, or `false` as soon as `signal` aborts.
 * @param {number} ms @param {AbortSignal} signal @returns {Promise<boolean>}
 */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A model that takes `stepMs` per step and calls `tool` once, then answers.
 * @param {{ name: string, stepMs: number, tool: string, input: Record<string, unknown> }} o
 * @returns {Model}
 */
export function simulatedModel({ name, stepMs, tool, input }) {
  const observed = `Observation (tool ${tool},`;
  return {
    name,
    /** @param {ModelRequest} request @returns {Promise<ModelResult>} */
    async call(request) {
      if (!(await sleep(stepMs, request.signal)))
        return { ok: false, error: { code: 'CANCELLED', message: 'the run was cancelled' } };
      const seen = request.messages.some(
        (m) =>
          (m.role === 'tool' && m.name === tool) || (m.role === 'user' && m.content.startsWith(observed)),
      );
      const text = seen
        ? JSON.stringify({ thought: 'I have what I need', final: `done after ${tool}` })
        : JSON.stringify({ thought: `calling ${tool}`, action: tool, input });
      return { ok: true, text, usage: { inputTokens: 100, outputTokens: 20 } };
    },
  };
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up (read-only).',
  input: z.object({ word: z.string() }),
  output: z.object({ word: z.string(), length: z.number() }),
  readOnly: true,
  run: ({ word }) => ({ word, length: word.length }),
});

const placeOrder = defineTool({
  name: 'place_order',
  description: 'Orders an item (changes the world: needs the user’s approval).',
  input: z.object({ item: z.string() }),
  output: z.object({ orderId: z.string() }),
  readOnly: false,
  run: ({ item }) => ({ orderId: `order-${item}` }),
});

/** Model steps of a `bench` run (tool call, answer); its simulated time is `STEPS × stepMs`. */
export const BENCH_STEPS = 2;

/**
 * The agents every instance serves (an API needs the definitions too: it checks the agent
 * and the run options before queueing):
 * - `bench`: 2 steps of `stepMs` (a read-only `lookup`, then the answer) — the load runs;
 * - `slow`: the same with `slowStepMs` per step — held by a worker long enough to cancel it;
 * - `approve`: `place_order` (not read-only: the run pauses for approval), `approveStepMs` per step.
 * @param {{ stepMs: number, slowStepMs?: number, approveStepMs?: number }} o
 */
export function benchAgents({ stepMs, slowStepMs = 30_000, approveStepMs = 0 }) {
  return {
    bench: {
      model: simulatedModel({ name: 'sim', stepMs, tool: 'lookup', input: { word: 'scale' } }),
      tools: [lookup],
    },
    slow: {
      model: simulatedModel({
        name: 'sim-slow',
        stepMs: slowStepMs,
        tool: 'lookup',
        input: { word: 'slow' },
      }),
      tools: [lookup],
      // The step outlasts the default model timeout (30 s) and must stay inside the deadline.
      limits: { modelTimeoutMs: slowStepMs + 30_000, deadlineMs: 2 * slowStepMs + 60_000 },
    },
    approve: {
      model: simulatedModel({
        name: 'sim-approve',
        stepMs: approveStepMs,
        tool: 'place_order',
        input: { item: 'milk' },
      }),
      tools: [placeOrder],
    },
  };
}
