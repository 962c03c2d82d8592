import { ToolError, type AnyTool } from 'reins';
import { z } from 'zod';
import type { NutritionEntry, NutritionLookup } from './nutrition-tool.js';

/** What the lookup needs of an `McpBridge` (`@reins/mcp` `connectMcp`): the tools callable now. */
export interface NutritionToolSource {
  tools(): readonly AnyTool[];
}

const num = z.number().nullable().optional();
/** The part of the nutrition server's `get_food` result the kitchen uses; the rest is ignored. */
const foodDetail = z.object({
  code: z.string().max(32),
  name: z.string().max(200),
  matchedAlias: z.string().max(100).nullable().optional(),
  note: z.string().max(500).optional(),
  source: z.string().max(100),
  per100g: z.object({
    energyKcal: num,
    proteinG: num,
    fatG: num,
    carbohydrateG: num,
    fibreG: num,
    sodiumMg: num,
  }),
});

/**
 * The nutrition lookup over the nutrition MCP server: calls its `get_food` tool (imported by
 * `connectMcp` with `prefix: 'nutrition_'`, so `nutrition_get_food`) with `{name: food}`, under
 * the calling tool's context (cancellation, progress). The server's `NOT_FOUND` is "no entry"
 * (`null`); a server that is down, not connected or answers in another shape is
 * `SERVICE_UNAVAILABLE` — never a made-up value.
 */
export function mcpNutritionLookup(
  source: NutritionToolSource,
  options: { readonly toolName?: string } = {},
): NutritionLookup {
  const toolName = options.toolName ?? 'nutrition_get_food';
  return async (food, ctx) => {
    const tool = source.tools().find((t) => t.name === toolName);
    if (tool === undefined)
      throw new ToolError('SERVICE_UNAVAILABLE', 'the nutrition server is not connected');
    const input = tool.input.safeParse({ name: food });
    if (!input.success)
      throw new ToolError('INVALID_PARAMETER', 'the nutrition server refuses this food name');
    let result: unknown;
    try {
      result = await tool.run(input.data, ctx);
    } catch (thrown) {
      if (thrown instanceof ToolError && thrown.code === 'NOT_FOUND') return null;
      throw thrown;
    }
    const detail = foodDetail.safeParse(result);
    if (!detail.success) {
      throw new ToolError('SERVICE_UNAVAILABLE', 'the nutrition server answered in an unexpected shape');
    }
    const { per100g: p, ...rest } = detail.data;
    const entry: NutritionEntry = {
      code: rest.code,
      name: rest.name,
      matchedAlias: rest.matchedAlias ?? null,
      source: rest.source,
      ...(rest.note === undefined ? {} : { note: rest.note }),
      per100g: {
        energyKcal: p.energyKcal ?? null,
        proteinG: p.proteinG ?? null,
        fatG: p.fatG ?? null,
        carbohydrateG: p.carbohydrateG ?? null,
        fibreG: p.fibreG ?? null,
        sodiumMg: p.sodiumMg ?? null,
      },
    };
    return entry;
  };
}
