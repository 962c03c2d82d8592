import type { Observation } from 'reins';
import type { UsedMemory } from './cards.js';
import { recallOutput } from './memory-tools.js';

/**
 * The memories the run really recalled (`recall_memories` observations that succeeded), each
 * once, in recall order: what the answer shows as "用到的记忆". Stamped by `finalize`; whatever
 * the model wrote in `memories` is replaced, so it cannot claim a memory the household lacks.
 */
export function recalledMemories(observations: readonly Observation[]): UsedMemory[] {
  const used = new Map<string, UsedMemory>();
  for (const o of observations) {
    if (o.tool !== 'recall_memories' || o.status !== 'ok') continue;
    const parsed = recallOutput.safeParse(o.result);
    if (!parsed.success) continue;
    for (const m of parsed.data.memories) if (!used.has(m.id)) used.set(m.id, { id: m.id, text: m.text });
  }
  return [...used.values()].slice(0, MAX_USED_MEMORIES);
}

export const MAX_USED_MEMORIES = 10;
