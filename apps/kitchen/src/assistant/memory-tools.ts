import { defineTool, type AnyTool } from 'reins';
import { z } from 'zod';
import type { MemoryService } from '../services/memory-service.js';
import { fromReinsPrincipal } from '../services/principal.js';
import { viaService } from './tool-errors.js';

const memory = z.object({ id: z.string(), text: z.string(), createdAt: z.string() });

/** What `recall_memories` returns: the evidence `finalize` stamps the answer's `memories` from. */
export const recallOutput = z.object({
  memories: z.array(
    memory.extend({ score: z.number(), via: z.array(z.enum(['text', 'trigram', 'vector'])).readonly() }),
  ),
});
export const rememberOutput = z.object({ remembered: memory });

/**
 * The assistant's two memory tools. Neither takes a household: the scope is the run's trusted
 * principal, checked for membership by the service on every call.
 *
 * - `recall_memories` is read-only: the recall is an observation in the run log, so the answer
 *   can show (stamped by code) which memories it used.
 * - `remember_memory` writes, so it always waits for the user's approval of the exact text
 *   (`needsApproval`): the model can propose a memory, only the user's "yes" stores it. It is
 *   never served over MCP (that server takes read-only tools only).
 */
export function memoryTools(memories: MemoryService): AnyTool[] {
  const recall = defineTool({
    name: 'recall_memories',
    version: '1',
    lastUpdated: '2026-12-02',
    description:
      "Recall the household's remembered notes relevant to a question (e.g. 婆婆不吃辣, 小宝对花生过敏): " +
      'use before suggesting dishes. query: the topic in the user’s words. 回忆家里记下的相关事项。',
    input: z.object({
      query: z.string().trim().min(1).max(200),
      limit: z.number().int().min(1).max(10).optional(),
    }),
    output: recallOutput,
    readOnly: true,
    run: async (input, ctx) => ({
      memories: await viaService(() =>
        memories.recall(fromReinsPrincipal(ctx.principal), {
          query: input.query,
          ...(input.limit === undefined ? {} : { limit: input.limit }),
        }),
      ),
    }),
  });

  const remember = defineTool({
    name: 'remember_memory',
    version: '1',
    lastUpdated: '2026-12-02',
    description:
      'Remember a short note for the household (only when the user asks you to remember something, e.g. ' +
      '“记住：婆婆不吃辣”). The user must approve the exact text first. 记住用户要求记下的事项（需用户确认）。',
    input: z.object({ text: z.string().trim().min(1).max(500) }),
    output: rememberOutput,
    readOnly: false,
    needsApproval: true,
    run: async (input, ctx) => ({
      remembered: await viaService(() =>
        memories.remember(fromReinsPrincipal(ctx.principal), { text: input.text }, ctx.runId),
      ),
    }),
  });

  return [recall, remember];
}
