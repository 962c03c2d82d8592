import { fileURLToPath } from 'node:url';
import type { AnyTool } from 'reins';
import { readApprovedTools, type ToolDefinitionSource, type ToolSet } from 'reins/node';
import type { ToolDriftOptions } from '@reins/server';
import { kitchenAgent } from '../assistant/agent.js';
import { kitchenDemoModel } from '../assistant/demo/kitchen-demo-model.js';
import type { KitchenServices } from '../services/kitchen-services.js';

/**
 * The kitchen's approved tool definitions (committed): the assistant's tools and the nutrition
 * MCP server's. Written by `kitchen tools approve`; `kitchen tools check`, the drift guard test
 * and the server's periodic check compare with it. From `src/…` and `dist/…` alike.
 */
export const KITCHEN_APPROVED_TOOLS = fileURLToPath(new URL('../../tools.approved.json', import.meta.url));

/** Services for tool definitions only: any call is a bug (the tools are never run). */
const definitionsOnly = new Proxy({} as KitchenServices, {
  get: (_target, service) =>
    new Proxy(
      {},
      {
        get: (_t, method) => () => {
          throw new Error(`tool definitions only: ${String(service)}.${String(method)} is never called`);
        },
      },
    ),
});

/** The assistant's tools as the server defines them (not runnable: for their definitions). */
export function kitchenAssistantTools(): readonly AnyTool[] {
  return kitchenAgent(definitionsOnly, { model: kitchenDemoModel(), nutrition: () => Promise.resolve(null) })
    .tools;
}

/** What the kitchen checks: the assistant's tools, and the nutrition MCP server's (re-listed). */
export function kitchenToolSet(nutrition: ToolDefinitionSource | undefined): ToolSet {
  return { tools: kitchenAssistantTools(), ...(nutrition === undefined ? {} : { sources: [nutrition] }) };
}

/**
 * The server's periodic drift check (`REINS_TOOL_DRIFT_CHECK_MS`): the agent's own tools (the
 * server takes them from the agent), the nutrition bridge re-listed, the approved file re-read.
 */
export function kitchenToolDrift(
  intervalMs: number,
  nutrition: ToolDefinitionSource | undefined,
  approvedFile = KITCHEN_APPROVED_TOOLS,
): ToolDriftOptions {
  return {
    intervalMs,
    approved: () => readApprovedTools(approvedFile),
    ...(nutrition === undefined ? {} : { sources: [nutrition] }),
  };
}
