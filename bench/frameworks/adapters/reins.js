// @ts-check
/**
 * Reins (the built package): `runAgent` then `await run.result`, over its zero-latency
 * `scriptModel` — the workload of bench/loop-overhead, reused as is.
 */
import { addCalls, reinsResult, startReins } from '../../loop-overhead/workload.js';
import { modelFor } from './script-model-for.js';

export const executed = () => addCalls.count;

/** The model is built before the timer starts, as in loop-overhead. @param {number} k */
export const prepare = (k) => modelFor(k);

/**
 * @param {number} k
 * @param {unknown} [model] from `prepare`
 * @returns {Promise<import('../scenario.js').Outcome>}
 */
export async function run(k, model = modelFor(k)) {
  const outcome = await reinsResult(startReins(k, /** @type {import('reins').Model} */ (model)));
  return { answer: outcome.answer, toolCalls: outcome.toolCalls };
}
