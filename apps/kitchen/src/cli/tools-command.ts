import { toolDriftCommand } from 'reins/node';
import type { KitchenConfig } from '../config.js';
import { connectNutrition } from '../server/nutrition-bridge.js';
import { KITCHEN_APPROVED_TOOLS, kitchenToolSet } from '../server/tool-drift.js';
import { UsageError, type CliIo } from './io.js';

export const TOOLS_USAGE = `kitchen tools check [--json]  the assistant's and the nutrition MCP server's tool definitions
                             against the approved set (apps/kitchen/tools.approved.json): exit 1 on drift
kitchen tools approve         writes the definitions in use as the approved set (commit it)`;

/**
 * `kitchen tools check | approve`: connects the nutrition MCP server (as the app does) to list
 * its tools, compares (or approves) with the committed approved set. No database is opened.
 */
export async function toolsCommand(
  config: KitchenConfig,
  args: readonly string[],
  io: CliIo,
  approvedFile = KITCHEN_APPROVED_TOOLS,
): Promise<number> {
  const [action, ...rest] = args;
  if ((action !== 'check' && action !== 'approve') || rest.some((a) => a !== '--json')) {
    throw new UsageError(`kitchen tools takes check or approve [--json], not: ${args.join(' ')}`);
  }
  const nutrition = await connectNutrition({
    redisUrl: config.redisUrl,
    url: config.nutritionMcpUrl,
    token: config.nutritionMcpToken,
  });
  try {
    const lines: string[] = [];
    const code = await toolDriftCommand(
      { action, approved: approvedFile, json: rest.includes('--json') },
      kitchenToolSet(nutrition.bridge),
      { out: (text) => lines.push(text), err: (text) => io.err(text.trimEnd()) },
    );
    if (lines.length > 0) io.out(lines.join('').trimEnd());
    return code;
  } finally {
    await nutrition.close();
  }
}
