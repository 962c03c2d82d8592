import { serveToolsStdio, startMcpHttp } from '@reins/mcp';
import type { KitchenConfig } from '../config.js';
import { kitchenMcpServer, sessionPrincipal } from '../mcp/kitchen-mcp-server.js';
import { connectNutrition } from '../server/nutrition-bridge.js';
import { parseArgs, UsageError, type CliIo } from './io.js';
import { openKitchen } from './open-app.js';

export const MCP_USAGE = `kitchen mcp --stdio          the five read-only tools over MCP on stdin/stdout, as the user
                             of the session token in KITCHEN_MCP_TOKEN (log in to get one)
kitchen mcp --http [--port N] Streamable HTTP on 127.0.0.1:N/mcp (default 8788); clients send
                             Authorization: Bearer <session token>`;

/** Resolves when the server stops (stdio: the client closed the pipe; HTTP: a signal). */
export async function mcpCommand(config: KitchenConfig, args: string[], io: CliIo): Promise<number> {
  const stdio = args.includes('--stdio');
  const http = args.includes('--http');
  if (stdio === http) throw new UsageError('kitchen mcp takes --stdio or --http');
  const { options } = parseArgs(args.filter((a) => a !== '--stdio' && a !== '--http'));
  const port = Number(options.get('port') ?? '8788');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError('--port must be 0..65535');

  if (stdio && config.mcpToken === undefined) {
    io.err('kitchen mcp --stdio: set KITCHEN_MCP_TOKEN to a session token (log in first)');
    return 2;
  }
  const kitchen = await openKitchen(config);
  const authenticate = sessionPrincipal(kitchen.services);
  // Checked before the nutrition child starts: a refused token costs no child process.
  const principal = stdio ? await authenticate(config.mcpToken ?? '') : undefined;
  if (stdio && principal === undefined) {
    await kitchen.db.close();
    io.err('kitchen mcp --stdio: KITCHEN_MCP_TOKEN is not a live session token (log in first)');
    return 2;
  }
  const nutrition = await connectNutrition({
    redisUrl: config.redisUrl,
    url: config.nutritionMcpUrl,
    token: config.nutritionMcpToken,
  });
  const server = kitchenMcpServer(kitchen.services, nutrition.lookup);
  const stopAll = async () => {
    await nutrition.close();
    await kitchen.db.close();
  };
  if (principal !== undefined) {
    const handle = serveToolsStdio(server, { principal });
    await new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    await handle.close?.();
    await stopAll();
    return 0;
  }
  const running = await startMcpHttp(server, { authenticate, port, host: config.host });
  io.err(`Xiaojia Kitchen MCP server on ${running.url}/mcp (bearer: a kitchen session token)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  await stopAll();
  return 0;
}
