import { readConfig } from '../config.js';
import { KitchenError } from '../domain/errors.js';
import { adminCommand, ADMIN_USAGE } from './admin.js';
import { processIo, UsageError, type CliIo } from './io.js';
import { startKitchen } from './serve.js';

const USAGE = `usage: kitchen serve            REST API on 127.0.0.1:$PORT (default 8787)
       kitchen admin <command>  operator commands

environment: PORT, DATABASE_URL (PostgreSQL; unset → PGlite), REINS_DATA_DIR (PGlite directory),
             KITCHEN_SEED (demo | none)

${ADMIN_USAGE}`;

/** Returns an exit code, or undefined while `serve` keeps running. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number | undefined> {
  const [command, ...args] = argv;
  try {
    const config = readConfig(io.env);
    if (command === 'serve') {
      const running = await startKitchen(config, io);
      const stop = () => {
        void running.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return undefined;
    }
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
