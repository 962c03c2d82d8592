import { DependencyUnavailableError } from 'reins';
import { ConfigError, readConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { KitchenError } from '../domain/errors.js';
import { adminCommand, ADMIN_USAGE } from './admin.js';
import { askCommand, ASK_USAGE } from './ask.js';
import { processIo, UsageError, type CliIo } from './io.js';
import { mcpCommand, MCP_USAGE } from './mcp-command.js';
import { startKitchen } from './serve.js';
import { PortInUseError } from './port-check.js';
import { startApp } from './start.js';
import { toolsCommand, TOOLS_USAGE } from './tools-command.js';

const USAGE = `usage: kitchen start            the whole app on 127.0.0.1:$PORT (default 8787): REST API (/api),
                                assistant (/v1), /health, /metrics; nutrition MCP server as a child
       kitchen start --role api|worker|all
                                one instance of the shared mode (REINS_MODE=shared, DATABASE_URL,
                                REDIS_URL): api serves the app and queues runs, worker executes them
       kitchen serve            the REST API alone
       kitchen admin <command>  operator commands
       ${ASK_USAGE}
       ${MCP_USAGE.replace(/\n/g, '\n       ')}
       ${TOOLS_USAGE.replace(/\n/g, '\n       ')}

environment: PORT, DATABASE_URL (PostgreSQL; unset → PGlite), REINS_DATA_DIR (PGlite directory),
             REINS_PGLITE_THREAD (on | off), REINS_PGLITE_TX_IDLE_TIMEOUT_MS (PGlite in its thread),
             REINS_CODEC_THREAD (on | off: stored events encoded in a worker thread; default on),
             REINS_DB_CONNECT_TIMEOUT_MS, REINS_DB_QUERY_TIMEOUT_MS (PostgreSQL deadlines),
             REINS_DB_POOL_SIZE, REINS_DB_POOL_WAIT_MS (PostgreSQL pool),
             KITCHEN_SEED (demo | none), REDIS_URL (quota counters), KITCHEN_MCP_TOKEN,
             REINS_MODE (embedded | shared), REINS_ROLE, REINS_WORKER_CONCURRENCY,
             REINS_WORKER_LOCK_MS, REINS_DRAIN_GRACE_MS, NUTRITION_MCP_URL, NUTRITION_MCP_TOKEN,
             REINS_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY (unset → demo model),
             REINS_MAX_MODEL_REPLY_BYTES, REINS_TOOL_DRIFT_CHECK_MS (0: off)

${ADMIN_USAGE}`;

/** `start [--role api|worker|all]` (checked with the rest of the configuration). */
function readRole(args: readonly string[]): string | undefined {
  if (args.length === 0) return undefined;
  const [flag, value, ...rest] = args;
  const inline = flag?.startsWith('--role=') === true ? flag.slice('--role='.length) : undefined;
  if (inline !== undefined && value === undefined) return inline;
  if (flag !== '--role' || value === undefined || rest.length > 0)
    throw new UsageError(`start takes only --role api|worker|all, not: ${args.join(' ')}`);
  return value;
}

/** Returns an exit code, or undefined while `serve` keeps running. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number | undefined> {
  const [command, ...args] = argv;
  const asksForHelp = [undefined, 'help', '--help', '-h'].includes(command);
  if (asksForHelp || args.includes('--help') || args.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  try {
    const role = command === 'start' ? readRole(args) : undefined;
    const config = readConfig(io.env, role);
    if (command === 'serve' || command === 'start') {
      const running = command === 'start' ? await startApp(config, io) : await startKitchen(config, io);
      // SIGTERM / SIGINT: drain (requests answered, runs given the grace, streams ended with a
      // last frame, a worker's runs handed back), then exit. A second signal, or a shutdown
      // stuck past the grace + 10 s, exits at once (a stuck dependency must not hold it).
      let stopping = false;
      const stop = () => {
        if (stopping) process.exit(1);
        stopping = true;
        setTimeout(() => {
          io.err('shutdown did not finish in time: exiting');
          process.exit(1);
        }, config.drainGraceMs + 10_000).unref();
        running.close().then(
          () => process.exit(0),
          (error: unknown) => {
            io.err(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      return undefined;
    }
    if (command === 'ask') return await askCommand(config, args, io);
    if (command === 'mcp') return await mcpCommand(config, args, io);
    if (command === 'tools') return await toolsCommand(config, args, io);
    if (command === 'admin') {
      await adminCommand(config, args, io);
      return 0;
    }
    io.out(USAGE);
    return 2;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`configuration error: ${error.message}`);
      return 2;
    }
    if (error instanceof DataDirLockedError) {
      io.err(`data directory in use: ${error.message}`);
      return 2;
    }
    if (error instanceof PortInUseError) {
      io.err(error.message);
      return 1;
    }
    if (error instanceof DependencyUnavailableError) {
      io.err(`error SERVICE_UNAVAILABLE: ${error.message}`);
      return 1;
    }
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof KitchenError) {
      io.err(`error ${error.code}${error.field === undefined ? '' : ` (${error.field})`}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
