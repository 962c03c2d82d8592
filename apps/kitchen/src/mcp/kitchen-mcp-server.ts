import { createMcpToolServer, type McpToolServer } from '@reins/mcp';
import type { Principal } from 'reins';
import { kitchenAgent } from '../assistant/agent.js';
import type { NutritionLookup } from '../assistant/nutrition-tool.js';
import type { KitchenServices } from '../services/kitchen-services.js';
import { toReinsPrincipal } from '../services/principal.js';

/**
 * The inward MCP server: the assistant's read-only tools (the same definitions, so the
 * same service layer and membership check), for MCP clients. The household is the caller's:
 * over HTTP the bearer session token's, over stdio the configured token's — never an argument.
 */
export function kitchenMcpServer(services: KitchenServices, nutrition: NutritionLookup): McpToolServer {
  // The agent's model is never called here; only its tools are served.
  const { tools, instructions } = kitchenAgent(services, {
    model: {
      name: 'none',
      call: () => Promise.resolve({ ok: false, error: { code: 'INTERNAL', message: 'no model' } }),
    },
    nutrition,
  });
  // Read-only tools only: an MCP client has no approval step, so remember_memory is not served.
  const readOnly = tools.filter((t) => t.readOnly);
  return createMcpToolServer({ name: 'xiaojia-kitchen', version: '0.1.0', tools: readOnly, instructions });
}

/** Session token → the Reins principal of its user and active household, or undefined. */
export function sessionPrincipal(
  services: KitchenServices,
): (token: string) => Promise<Principal | undefined> {
  return async (token) => {
    const session = await services.auth.authenticate(token);
    return session === null ? undefined : toReinsPrincipal(session.principal);
  };
}
