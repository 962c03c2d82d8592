import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { redisCacheStore } from '../cache/redis-cache-store.js';
import { startHttp } from '../http/start-http.js';
import { nutritionServerFactory } from '../mcp/nutrition-server.js';
import { createNutritionService } from '../service/nutrition-service.js';
import { describeConfig, readConfig, USAGE } from './config.js';

/**
 * The `nutrition-mcp` command. Logs go to stderr: on stdio, stdout is the protocol.
 * Resolves to an exit code for a bad command line (2) or an address it cannot listen on (1);
 * otherwise runs until stdin closes (stdio) or a signal arrives.
 */
export async function main(argv: readonly string[], env = process.env): Promise<number | undefined> {
  const outcome = readConfig(argv, env);
  if (!outcome.ok) {
    console.error(`${outcome.error.code}: ${outcome.error.message}\n${USAGE}`);
    return 2;
  }
  const { config } = outcome;
  console.error(describeConfig(config));
  const cache =
    config.redisUrl === undefined
      ? undefined
      : redisCacheStore({ url: config.redisUrl, onError: (e) => console.error(`redis: ${e.message}`) });
  const service = createNutritionService(cache === undefined ? {} : { cache });
  console.error(`nutrition-mcp: ${service.foodCount()} foods loaded (IFCT 2017)`);

  let stop: () => Promise<void>;
  if (config.transport === 'stdio') {
    const handle = serveStdio(nutritionServerFactory(service));
    stop = async () => {
      await handle.close();
      await service.close();
    };
    process.stdin.once('close', () => void shutdown());
  } else {
    let running: Awaited<ReturnType<typeof startHttp>>;
    try {
      running = await startHttp({
        port: config.port,
        host: config.host,
        service,
        ...(config.token === undefined ? {} : { token: config.token }),
      });
    } catch (thrown) {
      // A port taken, an address this machine does not have: said in one line, exit 1.
      const why = thrown instanceof Error ? thrown.message : String(thrown);
      console.error(`SERVICE_UNAVAILABLE: cannot listen on ${config.host}:${config.port}: ${why}`);
      await service.close();
      return 1;
    }
    console.error(
      `nutrition-mcp: listening on ${running.url} (MCP ${running.url}/mcp, health ${running.url}/health)`,
    );
    stop = async () => {
      await running.close();
      await service.close();
    };
  }
  let stopping = false;
  async function shutdown(): Promise<void> {
    if (stopping) return;
    stopping = true;
    await stop().catch((e: unknown) => console.error(e));
    process.exit(0);
  }
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  return undefined;
}
