// @ts-check
/** The hand-written loop of bench/loop-overhead (`handLoop`, ~40 lines) over the same script model. */
import { QUERY, TOOLS, addCalls, handLoop } from '../../loop-overhead/workload.js';
import { modelFor } from './script-model-for.js';

export const executed = () => addCalls.count;

/** @param {number} k */
export const prepare = (k) => modelFor(k);

/**
 * @param {number} k
 * @param {unknown} [model] from `prepare`
 * @returns {Promise<import('../scenario.js').Outcome>}
 */
export async function run(k, model = modelFor(k)) {
  const outcome = await handLoop(/** @type {import('reins').Model} */ (model), TOOLS, QUERY, k);
  return { answer: outcome.answer, toolCalls: outcome.toolCalls };
}
