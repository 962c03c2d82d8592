// @ts-check
/* global AbortController */
/**
 * The loop-overhead workloads, importable (the benchmark times them; workload.test.ts checks
 * they agree). Everything here imports 'reins' as a user would: from the built package when
 * run with node, from the sources when run under vitest (alias in vitest.config.ts).
 */
import { z } from 'zod';
import { setMaxListeners } from 'node:events';
import { ANONYMOUS, defineTool, runAgent, scriptModel } from 'reins';

/** @typedef {import('reins').Model} Model */
/** @typedef {import('reins').ModelRequest} ModelRequest */
/** @typedef {import('reins').ModelResult} ModelResult */
/** @typedef {import('reins').ToolContext} ToolContext */
/** @typedef {import('reins').AgentRun} AgentRun */
/** @typedef {import('reins').AnyTool} AnyTool */

/** What every workload returns, so the two loops can be compared. */
/** @typedef {{ answer: string, toolCalls: number, steps: number }} Outcome */

export const QUERY = 'Add up the numbers 1 … K-1, one tool call per step.';

/** What the one small tool is (for `defineTool` of any build of reins: see feature-cost.js). */
export const ADD_TOOL = {
  name: 'add',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  readOnly: true,
  run: (/** @type {{ a: number, b: number }} */ { a, b }) => ({ sum: a + b }),
};

/** The one small tool: add with a zod input and output. Counts its calls (for the test). */
export const addTool = defineTool({
  ...ADD_TOOL,
  run: (input) => {
    addCalls.count++;
    return ADD_TOOL.run(input);
  },
});
export const addCalls = { count: 0 };

/** @type {readonly AnyTool[]} */
export const TOOLS = [addTool];

/** @type {Map<number, readonly string[]>} */
const scripts = new Map();

/**
 * The model's replies for a K-step run: K-1 `add` calls, each with a different input (so the
 * repeated-action guard never fires), then the final answer. Built once per K and shared.
 * @param {number} k
 * @returns {readonly string[]}
 */
export function scriptFor(k) {
  let script = scripts.get(k);
  if (script === undefined) {
    /** @type {string[]} */
    const replies = [];
    let total = 0;
    for (let i = 1; i < k; i++) {
      replies.push(JSON.stringify({ thought: `add ${i}`, action: 'add', input: { a: total, b: i } }));
      total += i;
    }
    replies.push(JSON.stringify({ thought: 'done', final: `The total is ${total}.` }));
    script = Object.freeze(replies);
    scripts.set(k, script);
  }
  return script;
}

/** The answer both loops must give for K steps. @param {number} k */
export const expectedAnswer = (k) => `The total is ${((k - 1) * k) / 2}.`;

// ---------------------------------------------------------------------------------------
// reins

/**
 * Starts one reins run over a fresh zero-latency script model (plain-string replies).
 * @param {number} k steps (K-1 tool calls + the final answer); also `limits.maxSteps`
 * @param {Model} [model] defaults to `scriptModel(scriptFor(k))`
 * @returns {AgentRun}
 */
export function startReins(k, model = scriptModel(scriptFor(k))) {
  return runAgent({ query: QUERY, model, tools: TOOLS, limits: { maxSteps: k } });
}

/**
 * Awaits a run's record (events not consumed) and reduces it to an Outcome.
 * @param {AgentRun} run
 * @returns {Promise<Outcome>}
 */
export async function reinsResult(run) {
  const record = await run.result;
  if (record.status !== 'success')
    throw new Error(`reins run ended ${record.status}: ${record.final_answer}`);
  const toolCalls = record.steps.filter((s) => s.phase === 'act').length;
  return { answer: record.final_answer, toolCalls, steps: record.model_steps };
}

/**
 * Iterates the live event stream to its end, as a UI or SSE bridge would, and takes the
 * outcome from the events alone (the record is not read).
 * @param {AgentRun} run
 * @returns {Promise<Outcome>}
 */
export async function reinsEvents(run) {
  let toolCalls = 0;
  let answer = '';
  let steps = 0;
  for await (const event of run) {
    if (event.type === 'step' && event.phase === 'act') toolCalls++;
    else if (event.type === 'message') answer = event.text;
    else if (event.type === 'done') {
      if (event.status !== 'success') throw new Error(`reins run ended ${event.status}: ${answer}`);
      steps = event.steps;
    }
  }
  return { answer, toolCalls, steps };
}

/** @param {number} k */
export const runReins = (k) => reinsResult(startReins(k));

// ---------------------------------------------------------------------------------------
// The hand-written loop: parse → validate → call → observe, nothing else.

/** @typedef {{ role: 'system' | 'user' | 'assistant', content: string }} Message */

// Both loops call the same kind of model (reins' zero-latency `scriptModel`, through the
// `Model` interface), so the comparison measures the loops, not their models.
const NEVER_ABORTED = new AbortController().signal;
// Every gated hand run waits on this one signal in the memory measurement: not a leak.
setMaxListeners(0, NEVER_ABORTED);

/** @type {ToolContext} */
const HAND_CTX = { principal: ANONYMOUS, runId: 'hand', actId: 'hand', signal: new AbortController().signal };
const SYSTEM = 'Reply with one JSON object: {"action", "input"} or {"final"}.';

/**
 * The baseline: what a minimal agent loop does per step, with no events, limits or audit.
 * @param {Model} model
 * @param {readonly AnyTool[]} tools
 * @param {string} query
 * @param {number} maxSteps
 * @returns {Promise<Outcome>}
 */
export async function handLoop(model, tools, query, maxSteps) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  /** @type {Message[]} */
  const messages = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: query },
  ];
  let toolCalls = 0;
  for (let step = 1; step <= maxSteps; step++) {
    const reply = await model.call({
      messages,
      tools: [],
      signal: NEVER_ABORTED,
      step,
      finalStep: step === maxSteps,
    });
    if (!reply.ok) return { answer: reply.error.message, toolCalls, steps: step };
    const text = reply.text;
    /** @type {{ action?: string, input?: unknown, final?: string }} */
    let decision;
    try {
      decision = JSON.parse(text);
    } catch {
      return { answer: text, toolCalls, steps: step };
    }
    if (typeof decision.final === 'string') return { answer: decision.final, toolCalls, steps: step };
    messages.push({ role: 'assistant', content: text });
    const tool = byName.get(decision.action ?? '');
    /** @type {unknown} */
    let observation;
    if (tool === undefined) observation = { error: `no tool named ${decision.action}` };
    else {
      const input = tool.input.safeParse(decision.input);
      if (!input.success) observation = { error: input.error.message };
      else {
        toolCalls++;
        observation = { result: await tool.run(input.data, HAND_CTX) };
      }
    }
    messages.push({ role: 'user', content: `Observation: ${JSON.stringify(observation)}` });
  }
  return { answer: '(step limit reached)', toolCalls, steps: maxSteps };
}

/**
 * @param {number} k
 * @param {Model} [model]
 */
export const runHand = (k, model = scriptModel(scriptFor(k))) => handLoop(model, TOOLS, QUERY, k);

// ---------------------------------------------------------------------------------------
// A model that blocks: for the memory-per-run-in-flight measurement.

/** A promise many runs wait on, resolved once with `open()`. */
export class Gate {
  constructor() {
    /** @type {() => void} */
    let open = () => {};
    /** @type {Promise<void>} */
    this.promise = new Promise((resolve) => (open = resolve));
    this.open = open;
    /** Calls currently waiting at the gate. */
    this.waiting = 0;
  }
}

/**
 * Replays a script, but its `blockAt`-th call (1-based) waits until the gate opens. Honours
 * `request.signal`: an abort settles the waiting call at once with `CANCELLED`.
 * @implements {Model}
 */
export class GatedScriptModel {
  name = 'gated-script';
  #next = 0;
  /**
   * @param {readonly string[]} replies
   * @param {number} blockAt
   * @param {Gate} gate
   */
  constructor(replies, blockAt, gate) {
    this.replies = replies;
    this.blockAt = blockAt;
    this.gate = gate;
  }

  /**
   * @param {ModelRequest} request
   * @returns {Promise<ModelResult>}
   */
  async call(request) {
    const index = this.#next++;
    if (index + 1 === this.blockAt && !(await waitAtGate(this.gate, request.signal))) {
      return { ok: false, error: { code: 'CANCELLED', message: 'aborted while blocked at the gate' } };
    }
    if (request.signal.aborted) return { ok: false, error: { code: 'CANCELLED', message: 'aborted' } };
    const text = this.replies[index];
    if (text === undefined) {
      return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'script exhausted' } };
    }
    return { ok: true, text, usage: { inputTokens: 0, outputTokens: 0 } };
  }
}

/** The hand loop's model over the same gate: its `blockAt`-th call waits for the gate. */
/**
 * Resolves true when the gate opens, false as soon as `signal` aborts.
 * @param {Gate} gate
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<boolean>}
 */
function waitAtGate(gate, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    gate.waiting++;
    let settled = false;
    /** @param {boolean} opened */
    const settle = (opened) => {
      if (settled) return;
      settled = true;
      gate.waiting--;
      signal?.removeEventListener('abort', onAbort);
      resolve(opened);
    };
    const onAbort = () => settle(false);
    signal?.addEventListener('abort', onAbort, { once: true });
    void gate.promise.then(() => settle(true));
  });
}
