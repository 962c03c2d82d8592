import { fileURLToPath } from 'node:url';
import { parseAllowedHosts } from '@reins/server';

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
  /**
   * `REINS_RESUME_RUNS`: runs found running after a restart are resumed (default `on`); `off`
   * ends them `stopped` / `interrupted` with a notice instead.
   */
  readonly resumeRuns: boolean;
  /** `REINS_RUN_RETENTION_DAYS`: ended runs older than this are swept (default 30). */
  readonly runRetentionDays: number;
  /**
   * `NUTRITION_MCP_URL`: the nutrition MCP server over Streamable HTTP (one server for every
   * process, e.g. `http://127.0.0.1:8788/mcp`); unset → a stdio child per process.
   */
  readonly nutritionMcpUrl: string | undefined;
  /**
   * `REINS_ALLOWED_HOSTS`: comma-separated `Host` names the server answers besides
   * `localhost`, `127.0.0.1` and `[::1]` (any port), e.g. `kitchen.example,kitchen.example:8443`
   * (a name alone: any port). Any other `Host` gets 421 (DNS rebinding). Default: none.
   */
  readonly allowedHosts: readonly string[];
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
    resumeRuns: onOff('REINS_RESUME_RUNS', env['REINS_RESUME_RUNS'], true),
    runRetentionDays: positiveNumber('REINS_RUN_RETENTION_DAYS', env['REINS_RUN_RETENTION_DAYS'], 30),
    nutritionMcpUrl: httpUrl('NUTRITION_MCP_URL', env['NUTRITION_MCP_URL']),
    allowedHosts: allowedHosts(env['REINS_ALLOWED_HOSTS']),
  };
}

function httpUrl(name: string, value: string | undefined): string | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(
      `${name} must be an http(s) URL such as http://127.0.0.1:8788/mcp, not ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(
      `${name} must be an http(s) URL such as http://127.0.0.1:8788/mcp, not ${JSON.stringify(value)}`,
    );
  return url.toString();
}

function allowedHosts(value: string | undefined): string[] {
  const hosts = parseAllowedHosts(value);
  const bad = hosts.find((host) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host));
  if (bad !== undefined)
    throw new Error(
      `REINS_ALLOWED_HOSTS must list host names such as kitchen.example or kitchen.example:8443, not ${JSON.stringify(bad)}`,
    );
  return hosts;
}

function onOff(name: string, value: string | undefined, fallback: boolean): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new Error(`${name} must be on or off, not ${JSON.stringify(value)}`);
}

function positiveNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`${name} must be a positive number of days, not ${JSON.stringify(value)}`);
  return n;
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
  const nutrition =
    config.nutritionMcpUrl === undefined
      ? 'stdio child'
      : config.nutritionMcpUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  return `storage: ${storage}; seed: ${config.seed}; quota counters: ${redis}; runs: durable, resume ${config.resumeRuns ? 'on' : 'off'}, kept ${config.runRetentionDays} days; nutrition: ${nutrition}`;
}
