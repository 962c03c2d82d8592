// @ts-check
/** The scripted model Reins and the hand loop share: plain, or gated for the memory measure. */
import { scriptModel } from 'reins';
import { GatedScriptModel, scriptFor } from '../../loop-overhead/workload.js';
import { MEMORY_BLOCK_AFTER_TOOL_RESULTS, gating } from '../scenario.js';

/** Built before the timer starts, as in loop-overhead. @param {number} k */
export const modelFor = (k) =>
  gating.gate === undefined
    ? scriptModel(scriptFor(k))
    : new GatedScriptModel(scriptFor(k), MEMORY_BLOCK_AFTER_TOOL_RESULTS + 1, gating.gate);
