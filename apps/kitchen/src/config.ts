import { fileURLToPath } from 'node:url';

export interface KitchenConfig {
  /** `PORT`, default 8787. */
  readonly port: number;
  /** Always 127.0.0.1 for now: nothing here is meant to face another machine yet. */
  readonly host: string;
  /** `DATABASE_URL`: PostgreSQL; unset → embedded PGlite. */
  readonly databaseUrl: string | undefined;
  /** `DATABASE_SCHEMA`: the PostgreSQL schema to use (created if missing); default `public`. */
  readonly schema: string | undefined;
  /** `REINS_DATA_DIR`: PGlite's directory, default `apps/kitchen/.data`. */
  readonly dataDir: string;
  /**
   * `KITCHEN_SEED`: `demo` seeds the demo households on an empty database. Default `demo` on
   * PGlite, `none` on PostgreSQL: a shared database should not get users with published passwords.
   */
  readonly seed: 'demo' | 'none';
  /** `REDIS_URL`: quota counters (and the nutrition server's cache) in Redis; unset → in-process. */
  readonly redisUrl: string | undefined;
  /** `KITCHEN_MCP_TOKEN`: the session token `kitchen mcp --stdio` serves as (whose household). */
  readonly mcpToken: string | undefined;
}

export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../.data', import.meta.url));

/** The one place configuration is read from the environment. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): KitchenConfig {
  const databaseUrl = env['DATABASE_URL'] === '' ? undefined : env['DATABASE_URL'];
  const port = Number(env['PORT'] ?? '8787');
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`PORT is not a port: ${env['PORT']}`);
  const seed = env['KITCHEN_SEED'] ?? (databaseUrl === undefined ? 'demo' : 'none');
  if (seed !== 'demo' && seed !== 'none') throw new Error(`KITCHEN_SEED must be demo or none, not ${seed}`);
  return {
    port,
    host: '127.0.0.1',
    databaseUrl,
    schema: env['DATABASE_SCHEMA'] || undefined,
    dataDir: env['REINS_DATA_DIR'] || DEFAULT_DATA_DIR,
    seed,
    redisUrl: env['REDIS_URL']?.trim() || undefined,
    mcpToken: env['KITCHEN_MCP_TOKEN']?.trim() || undefined,
  };
}

/** For the start-up line: the password of a database URL masked. */
export function describeConfig(config: KitchenConfig): string {
  const storage =
    config.databaseUrl === undefined
      ? `PGlite at ${config.dataDir}`
      : `PostgreSQL at ${config.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}${config.schema === undefined ? '' : ` (schema ${config.schema})`}`;
  const redis =
    config.redisUrl === undefined
      ? 'in-process'
      : config.redisUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  return `storage: ${storage}; seed: ${config.seed}; quota counters: ${redis}`;
}
