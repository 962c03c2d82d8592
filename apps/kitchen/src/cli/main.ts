import { readConfig } from '../config.js';
import { KitchenError } from '../domain/errors.js';
import { adminCommand, ADMIN_USAGE } from './admin.js';
import { askCommand, ASK_USAGE } from './ask.js';
import { processIo, UsageError, type CliIo } from './io.js';
import { mcpCommand, MCP_USAGE } from './mcp-command.js';
import { startKitchen } from './serve.js';
import { startApp } from './start.js';

const USAGE = `usage: kitchen start            the whole app on 127.0.0.1:$PORT (default 8787): REST API (/api),
                                assistant (/v1), /health, /metrics; nutrition MCP server as a child
       kitchen serve            the REST API alone
       kitchen admin <command>  operator commands
       ${ASK_USAGE}
       ${MCP_USAGE.replace(/\n/g, '\n       ')}

environment: PORT, DATABASE_URL (PostgreSQL; unset → PGlite), REINS_DATA_DIR (PGlite directory),
             KITCHEN_SEED (demo | none), REDIS_URL (quota counters), KITCHEN_MCP_TOKEN,
             REINS_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY (unset → demo model)

${ADMIN_USAGE}`;

/** Returns an exit code, or undefined while `serve` keeps running. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number | undefined> {
  const [command, ...args] = argv;
  try {
    const config = readConfig(io.env);
    if (command === 'serve' || command === 'start') {
      const running = command === 'start' ? await startApp(config, io) : await startKitchen(config, io);
      const stop = () => {
        void running.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return undefined;
    }
    if (command === 'ask') return await askCommand(config, args, io);
    if (command === 'mcp') return await mcpCommand(config, args, io);
    if (command === 'admin') {
      await adminCommand(config, args, io);
      return 0;
    }
    io.out(USAGE);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  } catch (error) {
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
