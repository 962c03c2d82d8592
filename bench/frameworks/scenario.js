// @ts-check
/**
 * The one scenario every framework runs, defined once. Plain data and functions: no framework,
 * no zod, so the check in scenario.test.ts needs nothing from bench/frameworks/node_modules.
 *
 * A K-step run is K model calls: K-1 calls of the one tool `add({a, b}) -> {sum}`, each with a
 * different input (step i adds i to the running total), then a final answer naming the total.
 * The model is scripted, zero-latency (resolved values, no timers) and stateless: it decides
 * from the request alone — the number of tool results already in the conversation is the step —
 * so one agent object serves every run, as an application holds one.
 */

export const QUERY = 'Add up the numbers 1 … K-1, one tool call per step.';
export const INSTRUCTIONS = 'Use the add tool once per step, then answer with the total.';
export const TOOL_NAME = 'add';
export const TOOL_DESCRIPTION = 'Add two numbers.';

/** The tool's input at step `i` (1-based, i < K): the running total so far, plus i. @param {number} i */
export const toolInput = (i) => ({ a: ((i - 1) * i) / 2, b: i });

/** The answer every framework must give for K steps. @param {number} k */
export const expectedAnswer = (k) => `The total is ${((k - 1) * k) / 2}.`;

/**
 * What the scripted model does when `toolResults` tool results are already in the conversation:
 * call the tool again (with the next input) or give the final answer.
 * @param {number} k
 * @param {number} toolResults
 * @returns {{ kind: 'tool', callId: string, input: { a: number, b: number } } | { kind: 'final', text: string }}
 */
export function nextMove(k, toolResults) {
  const step = toolResults + 1;
  if (step < k) return { kind: 'tool', callId: `call_${step}`, input: toolInput(step) };
  return { kind: 'final', text: expectedAnswer(k) };
}

/** The tool body every adapter wraps; counts executions so each run can be checked. */
export const executions = { count: 0 };
/** @param {{ a: number, b: number }} input */
export function add({ a, b }) {
  executions.count++;
  return { sum: a + b };
}

/**
 * The memory measurement: K=4, and the model's 4th call (after three tool steps) waits at a
 * gate until every run in flight has reached it.
 */
export const MEMORY_K = 4;
export const MEMORY_BLOCK_AFTER_TOOL_RESULTS = 3;

/** A promise many runs wait on, opened once (the loop-overhead workload's). */
export { Gate } from '../loop-overhead/workload.js';

/** The gate the scripted models wait at, when one is set (memory measurement only). */
/** @type {{ gate: import('../loop-overhead/workload.js').Gate | undefined }} */
export const gating = { gate: undefined };

/**
 * The scripted model's one shared decision, for every framework's model adapter: the next move,
 * after waiting at the gate when one is set and this is the blocked step.
 * @param {number} k
 * @param {number} toolResults
 */
export function decide(k, toolResults) {
  const gate = gating.gate;
  if (gate !== undefined && toolResults === MEMORY_BLOCK_AFTER_TOOL_RESULTS) {
    gate.waiting++;
    return gate.promise.then(() => {
      gate.waiting--;
      return nextMove(k, toolResults);
    });
  }
  return nextMove(k, toolResults);
}

/** What every adapter's run returns, checked after every run. */
/** @typedef {{ answer: string, toolCalls: number }} Outcome */

/**
 * Throws unless the outcome is right: the final answer, and K-1 tool calls as the framework
 * reports them.
 * @param {Outcome} outcome @param {number} k @param {string} name
 */
export function check(outcome, k, name) {
  if (outcome.answer !== expectedAnswer(k) || outcome.toolCalls !== k - 1) {
    throw new Error(
      `${name} K=${k}: expected ${JSON.stringify({ answer: expectedAnswer(k), toolCalls: k - 1 })}, got ${JSON.stringify(outcome)}`,
    );
  }
}
