import { fileURLToPath } from 'node:url';
import { connectMcp, mcpHealthCheck, type ConnectMcpOptions, type McpBridge } from '@reins/mcp';
import type { HealthCheck } from '@reins/server';
import { mcpNutritionLookup } from '../assistant/mcp-nutrition.js';
import type { NutritionLookup } from '../assistant/nutrition-tool.js';

/** The nutrition MCP server's entry (`npm run nutrition-mcp`), from `src/…` and `dist/…` alike. */
export const NUTRITION_SERVER_BIN = fileURLToPath(
  new URL('../../../nutrition-mcp/bin/nutrition-mcp.js', import.meta.url),
);

export interface NutritionConnection {
  readonly bridge: McpBridge;
  readonly lookup: NutritionLookup;
  readonly health: HealthCheck;
  /** Is the server up now (a `tools/list`)? The nutrition breaker's half-open probe. */
  probe(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The nutrition MCP server through `@reins/mcp`: over Streamable HTTP when `url` is given, else
 * as a stdio child (spawned with node directly, so
 * npm's banner never reaches the JSON-RPC pipe and signals reach the server). Resolves also when
 * the server does not start: it is then `down` in `/health` and lookups are `SERVICE_UNAVAILABLE`.
 */
export async function connectNutrition(
  options: {
    readonly redisUrl?: string | undefined;
    /** The server over Streamable HTTP (`NUTRITION_MCP_URL`): one server for every process, no child. */
    readonly url?: string | undefined;
    /** `NUTRITION_MCP_TOKEN`: sent as `Authorization: Bearer <token>` to `url` (ignored for the child). */
    readonly token?: string | undefined;
  } & Partial<Omit<ConnectMcpOptions, 'name' | 'prefix'>> = {},
): Promise<NutritionConnection> {
  const { redisUrl, url, token, ...rest } = options;
  const bridge = await connectMcp({
    name: 'nutrition',
    prefix: 'nutrition_',
    transport:
      url !== undefined
        ? {
            kind: 'http',
            url,
            ...(token === undefined ? {} : { auth: { provider: { token: () => Promise.resolve(token) } } }),
          }
        : {
            kind: 'stdio',
            command: process.execPath,
            args: [NUTRITION_SERVER_BIN, '--stdio'],
            ...(redisUrl === undefined ? {} : { env: { REDIS_URL: redisUrl } }),
          },
    callTimeoutMs: 5_000,
    // Our own server speaks both revisions; 'auto' would spawn a second child just to probe.
    protocol: 'legacy',
    ...rest,
  });
  const probe = mcpHealthCheck(bridge);
  return {
    bridge,
    lookup: mcpNutritionLookup(bridge),
    health: async () => ({ ...(await probe()) }),
    probe: async () => (await bridge.probe()).status === 'up',
    close: () => bridge.close(),
  };
}
