// @ts-check
/** The hand-written loop of bench/loop-overhead (`handLoop`, ~40 lines) over the same script model. */
import { scriptModel } from 'reins';
import {
  GatedScriptModel,
  QUERY,
  TOOLS,
  addCalls,
  handLoop,
  scriptFor,
} from '../../loop-overhead/workload.js';
import { MEMORY_BLOCK_AFTER_TOOL_RESULTS, gating } from '../scenario.js';

export const executed = () => addCalls.count;

/** @param {number} k */
const modelFor = (k) =>
  gating.gate === undefined
    ? scriptModel(scriptFor(k))
    : new GatedScriptModel(scriptFor(k), MEMORY_BLOCK_AFTER_TOOL_RESULTS + 1, gating.gate);

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
