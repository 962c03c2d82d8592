import { defaultToolPolicies, type BreakerState, type ToolPolicies } from 'reins';
import type { McpBridge, McpStatus } from './bridge.js';

/** One row of the MCP health table: the server, and each of its tools with its breaker. */
export interface McpHealth {
  readonly status: 'up' | 'down';
  readonly detail?: string;
  readonly latencyMs?: number;
  readonly server: string;
  readonly state: McpStatus['status'];
  readonly tools: Readonly<Record<string, BreakerState>>;
  readonly pendingApprovals: number;
  readonly restarts: number;
}

/**
 * A health check for one MCP server (the shape `@reins/server`'s `healthChecks` takes): probes
 * it (a `tools/list`, cheap and side-effect free), and reports the breaker of each of its
 * tools from the app's `ToolPolicies`. `down` when the server is not up or a breaker is open.
 */
export function mcpHealthCheck(
  bridge: McpBridge,
  policies: ToolPolicies = defaultToolPolicies,
): () => Promise<McpHealth> {
  return async () => {
    const status = await bridge.probe();
    const tools = Object.fromEntries(
      bridge.tools().map((tool) => [tool.name, policies.guardFor(tool).breakerState]),
    );
    const open = Object.entries(tools).filter(([, state]) => state !== 'closed');
    const problem =
      status.status !== 'up'
        ? `server ${status.status}${status.lastError === undefined ? '' : `: ${status.lastError}`}`
        : open.length > 0
          ? `breaker not closed: ${open.map(([name]) => name).join(', ')}`
          : undefined;
    return {
      status: problem === undefined ? 'up' : 'down',
      ...(problem === undefined ? {} : { detail: problem }),
      ...(status.latencyMs === undefined ? {} : { latencyMs: status.latencyMs }),
      server: status.server,
      state: status.status,
      tools,
      pendingApprovals: status.pendingApprovals,
      restarts: status.restarts,
    };
  };
}
