import { fileURLToPath } from 'node:url';
import {
  normalizeOrigin,
  parseAllowedHosts,
  parseAllowedOrigins,
  SHARED_ROLES,
  type QuotaOptions,
  type SharedRole,
} from '@reins/server';
import { PG_DB_DEFAULTS } from './db/pg-db.js';
import { PGLITE_THREAD_DEFAULTS } from './db/pglite-thread.js';

export interface KitchenConfig {
  /** `PORT`, default 8787. */
  readonly port: number;
  /** Always 127.0.0.1 for now: nothing here is meant to face another machine yet. */
  readonly host: string;
  /** `DATABASE_URL`: PostgreSQL; unset → embedded PGlite. */
  readonly databaseUrl: string | undefined;
  /** `DATABASE_SCHEMA`: the PostgreSQL schema to use (created if missing); default `public`. */
  readonly schema: string | undefined;
  /**
   * `REINS_DB_CONNECT_TIMEOUT_MS` (PostgreSQL): a new connection within this long, else 503
   * `SERVICE_UNAVAILABLE` (default 1 000).
   */
  readonly dbConnectTimeoutMs: number;
  /** `REINS_DB_POOL_SIZE` (PostgreSQL): connections of this instance's pool (default 10). */
  readonly dbPoolSize: number;
  /**
   * `REINS_DB_POOL_WAIT_MS` (PostgreSQL): while every connection is busy, a statement waits this
   * long for one (a queue under load is not an outage), else 503 (default 5 000).
   */
  readonly dbPoolWaitMs: number;
  /**
   * `REINS_DB_QUERY_TIMEOUT_MS` (PostgreSQL): the longest wait for one statement's answer, else
   * 503 `SERVICE_UNAVAILABLE`; the server cancels it a little earlier (default 1 500).
   */
  readonly dbQueryTimeoutMs: number;
  /** `REINS_DATA_DIR`: PGlite's directory, default `apps/kitchen/.data`. */
  readonly dataDir: string;
  /**
   * `REINS_PGLITE_THREAD` (PGlite): `on` (default) runs the database in a worker thread, so SQL
   * never blocks the event loop that serves requests; `off` runs it in the main thread, as before.
   */
  readonly pgliteThread: boolean;
  /**
   * `REINS_CODEC_THREAD`: `on` (default) encodes the stored run events in a worker thread, so the
   * event loop only hands them over (~19% less of its time per run with PostgreSQL at c=200, and
   * a shorter tail: docs/performance.md); `off` encodes them in the main thread, as before (one
   * thread fewer, for a machine with a single core to give).
   */
  readonly codecThread: boolean;
  /**
   * `REINS_PGLITE_TX_IDLE_TIMEOUT_MS` (PGlite in a thread): a transaction whose caller sends
   * nothing for this long is rolled back (code `25P03`), since everything else waits behind it
   * (default 5 000).
   */
  readonly pgliteTxIdleTimeoutMs: number;
  /**
   * `KITCHEN_SEED`: `demo` seeds the demo households on an empty database. Default `demo` on
   * PGlite, `none` on PostgreSQL: a shared database should not get users with published passwords.
   */
  readonly seed: 'demo' | 'none';
  /** `REDIS_URL`: quota counters (and the nutrition server's cache) in Redis; unset → in-process. */
  readonly redisUrl: string | undefined;
  /** `REINS_REDIS_PREFIX`: the prefix of every Redis key and channel the runtime uses (default `reins:`). */
  readonly redisPrefix: string | undefined;
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
   * `REINS_RECORD_PROMPTS`: each model step's exact messages (masked) are kept with the run
   * and shown in the playground (default `on`); `off` keeps none.
   */
  readonly recordPrompts: boolean;
  /**
   * `NUTRITION_MCP_URL`: the nutrition MCP server over Streamable HTTP (one server for every
   * process, e.g. `http://127.0.0.1:8788/mcp`); unset → a stdio child per process.
   */
  readonly nutritionMcpUrl: string | undefined;
  /**
   * `NUTRITION_MCP_TOKEN`: sent as `Authorization: Bearer <token>` to `NUTRITION_MCP_URL` (the
   * server requires it when it listens beyond loopback); unused without the URL.
   */
  readonly nutritionMcpToken: string | undefined;
  /**
   * `REINS_ALLOWED_HOSTS`: comma-separated `Host` names the server answers besides
   * `localhost`, `127.0.0.1` and `[::1]` (any port), e.g. `kitchen.example,kitchen.example:8443`
   * (a name alone: any port). Any other `Host` gets 421 (DNS rebinding). Default: none.
   */
  readonly allowedHosts: readonly string[];
  /**
   * `REINS_ALLOWED_ORIGINS`: comma-separated origins (`https://kitchen.example`) whose pages may
   * change things here besides the server's own origin: POST, PUT, PATCH and DELETE under
   * `/api` and `/v1` from any other origin get 403 `CROSS_ORIGIN`. Default: none.
   */
  readonly allowedOrigins: readonly string[];
  /**
   * `REINS_MODE=shared` (with `DATABASE_URL` and `REDIS_URL`): this process is one instance
   * of many — `--role api` (or `REINS_ROLE`) serves the app and queues runs, `worker` executes
   * them, `all` (default) both. Unset: the embedded default, everything in this process.
   */
  readonly shared: SharedConfig | undefined;
  /**
   * `REINS_DRAIN_GRACE_MS`: on SIGTERM, how long requests being answered and runs under way may
   * take to finish (default 10 000); then embedded runs stop (resumed at the next start) and a
   * worker hands its runs back.
   */
  readonly drainGraceMs: number;
  /**
   * `REINS_HEALTH_INTERVAL_MS`: how often `/health`'s checks run in the background (default
   * 5 000); `/health` answers from their last results, a result older than 3 intervals is down.
   */
  readonly healthIntervalMs: number;
  /**
   * `REINS_TOOL_DRIFT_CHECK_MS`: how often the server compares the tool definitions in use
   * (the assistant's, the nutrition server's) with `tools.approved.json` (default 21 600 000 =
   * 6 h; also at start-up); `0` turns the check off.
   */
  readonly toolDriftCheckMs: number;
  /**
   * The assistant's limits per user (each a positive whole number, or `off`):
   * `REINS_DAILY_MODEL_CALLS` (default 200), `REINS_MAX_CONCURRENT_RUNS` (3),
   * `REINS_USER_RUNS_PER_MINUTE` (20), `REINS_SAME_QUERY_PER_MINUTE` (5: one caller, one query).
   */
  readonly quota: QuotaOptions;
  /** Login backoff and the bound on password checks (`REINS_LOGIN_*`; see `LoginConfig`). */
  readonly login: LoginConfig;
  /**
   * `REINS_TRUST_PROXY`: how many reverse proxies stand in front (default 0). With N ≥ 1, the
   * client's address (for the login backoff) is the N-th entry from the right of
   * `X-Forwarded-For`, the one the outermost trusted proxy saw; with 0 the header is ignored.
   */
  readonly trustProxy: number;
}

/** Failed logins lock a username or an address for a while; password checks run a few at a time. */
export interface LoginConfig {
  /** `REINS_LOGIN_MAX_FAILURES`: failures within the window that lock (default 5; the 6th try gets 429). */
  readonly maxFailures: number;
  /** `REINS_LOGIN_WINDOW_MS`: how long failures count, from the first (default 900 000 = 15 min). */
  readonly windowMs: number;
  /** `REINS_LOGIN_LOCK_MS`: how long a lock lasts, fixed (default 900 000 = 15 min). */
  readonly lockMs: number;
  /** `REINS_LOGIN_HASH_CONCURRENCY`: password checks at once per process (default 2). */
  readonly hashConcurrency: number;
  /** `REINS_LOGIN_HASH_QUEUE`: checks that may wait for one; past it, 503 (default 16). */
  readonly hashQueue: number;
}

export interface SharedConfig {
  readonly role: SharedRole;
  /** `REINS_WORKER_CONCURRENCY`: runs one worker holds at once (default 10). */
  readonly concurrency: number;
  /** `REINS_WORKER_LOCK_MS`: a killed worker's runs go to another after about this long (default 30 000). */
  readonly lockMs: number;
  /** `REINS_DRAIN_GRACE_MS`: on SIGTERM, how long runs may take to stop before they are handed back (default 10 000). */
  readonly drainGraceMs: number;
}

/** A setting that is wrong or missing: the message says which, and what it should be. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../.data', import.meta.url));

/** The one place configuration is read from the environment (and `--role`, from `role`). */
export function readConfig(env: NodeJS.ProcessEnv = process.env, role?: string): KitchenConfig {
  const databaseUrl = env['DATABASE_URL'] === '' ? undefined : env['DATABASE_URL'];
  const port = Number(env['PORT'] ?? '8787');
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new ConfigError(`PORT is not a port: ${env['PORT']}`);
  const seed = env['KITCHEN_SEED'] ?? (databaseUrl === undefined ? 'demo' : 'none');
  if (seed !== 'demo' && seed !== 'none')
    throw new ConfigError(`KITCHEN_SEED must be demo or none, not ${seed}`);
  return {
    port,
    host: '127.0.0.1',
    databaseUrl,
    schema: env['DATABASE_SCHEMA'] || undefined,
    dbConnectTimeoutMs: wholeNumber(
      'REINS_DB_CONNECT_TIMEOUT_MS',
      env['REINS_DB_CONNECT_TIMEOUT_MS'],
      PG_DB_DEFAULTS.connectionTimeoutMs,
    ),
    dbPoolSize: wholeNumber('REINS_DB_POOL_SIZE', env['REINS_DB_POOL_SIZE'], PG_DB_DEFAULTS.maxConnections),
    dbPoolWaitMs: wholeNumber(
      'REINS_DB_POOL_WAIT_MS',
      env['REINS_DB_POOL_WAIT_MS'],
      PG_DB_DEFAULTS.poolWaitMs,
    ),
    dbQueryTimeoutMs: wholeNumber(
      'REINS_DB_QUERY_TIMEOUT_MS',
      env['REINS_DB_QUERY_TIMEOUT_MS'],
      PG_DB_DEFAULTS.queryTimeoutMs,
    ),
    dataDir: env['REINS_DATA_DIR'] || DEFAULT_DATA_DIR,
    pgliteThread: onOff('REINS_PGLITE_THREAD', env['REINS_PGLITE_THREAD'], true),
    codecThread: onOff('REINS_CODEC_THREAD', env['REINS_CODEC_THREAD'], true),
    pgliteTxIdleTimeoutMs: wholeNumber(
      'REINS_PGLITE_TX_IDLE_TIMEOUT_MS',
      env['REINS_PGLITE_TX_IDLE_TIMEOUT_MS'],
      PGLITE_THREAD_DEFAULTS.transactionIdleTimeoutMs,
    ),
    seed,
    redisUrl: env['REDIS_URL']?.trim() || undefined,
    redisPrefix: env['REINS_REDIS_PREFIX']?.trim() || undefined,
    mcpToken: env['KITCHEN_MCP_TOKEN']?.trim() || undefined,
    resumeRuns: onOff('REINS_RESUME_RUNS', env['REINS_RESUME_RUNS'], true),
    runRetentionDays: positiveNumber('REINS_RUN_RETENTION_DAYS', env['REINS_RUN_RETENTION_DAYS'], 30),
    recordPrompts: onOff('REINS_RECORD_PROMPTS', env['REINS_RECORD_PROMPTS'], true),
    nutritionMcpUrl: httpUrl('NUTRITION_MCP_URL', env['NUTRITION_MCP_URL']),
    nutritionMcpToken: env['NUTRITION_MCP_TOKEN']?.trim() || undefined,
    allowedHosts: allowedHosts(env['REINS_ALLOWED_HOSTS']),
    allowedOrigins: allowedOrigins(env['REINS_ALLOWED_ORIGINS']),
    shared: sharedConfig(env, role ?? (env['REINS_ROLE']?.trim() || undefined)),
    drainGraceMs: wholeNumber('REINS_DRAIN_GRACE_MS', env['REINS_DRAIN_GRACE_MS'], 10_000),
    healthIntervalMs: wholeNumber('REINS_HEALTH_INTERVAL_MS', env['REINS_HEALTH_INTERVAL_MS'], 5_000),
    toolDriftCheckMs: timerMs('REINS_TOOL_DRIFT_CHECK_MS', env['REINS_TOOL_DRIFT_CHECK_MS'], 21_600_000),
    quota: quotaConfig(env),
    login: {
      maxFailures: wholeNumber('REINS_LOGIN_MAX_FAILURES', env['REINS_LOGIN_MAX_FAILURES'], 5),
      windowMs: wholeNumber('REINS_LOGIN_WINDOW_MS', env['REINS_LOGIN_WINDOW_MS'], 900_000),
      lockMs: wholeNumber('REINS_LOGIN_LOCK_MS', env['REINS_LOGIN_LOCK_MS'], 900_000),
      hashConcurrency: wholeNumber('REINS_LOGIN_HASH_CONCURRENCY', env['REINS_LOGIN_HASH_CONCURRENCY'], 2),
      hashQueue: countOf('REINS_LOGIN_HASH_QUEUE', env['REINS_LOGIN_HASH_QUEUE'], 16),
    },
    trustProxy: countOf('REINS_TRUST_PROXY', env['REINS_TRUST_PROXY'], 0),
  };
}

/** A whole number ≥ 0 (0 allowed, unlike `wholeNumber`). */
function countOf(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new ConfigError(`${name} must be a whole number (0 or more), not ${JSON.stringify(value)}`);
  return n;
}

function sharedConfig(env: NodeJS.ProcessEnv, role: string | undefined): SharedConfig | undefined {
  const mode = env['REINS_MODE']?.trim() || 'embedded';
  if (mode !== 'embedded' && mode !== 'shared')
    throw new ConfigError(`REINS_MODE must be embedded or shared, not ${JSON.stringify(env['REINS_MODE'])}`);
  if (mode === 'embedded') {
    if (role !== undefined)
      throw new ConfigError(
        `--role ${role} needs the shared mode: set REINS_MODE=shared, DATABASE_URL (PostgreSQL) and REDIS_URL`,
      );
    return undefined;
  }
  const missing = [
    /^postgres(ql)?:\/\//.test(env['DATABASE_URL'] ?? '') ? undefined : 'DATABASE_URL (a postgres:// URL)',
    /^rediss?:\/\//.test(env['REDIS_URL']?.trim() ?? '') ? undefined : 'REDIS_URL (a redis:// URL)',
  ].filter((x) => x !== undefined);
  if (missing.length > 0)
    throw new ConfigError(
      `REINS_MODE=shared needs ${missing.join(' and ')}: every instance shares one PostgreSQL and one Redis`,
    );
  const chosen = role ?? 'all';
  if (!(SHARED_ROLES as readonly string[]).includes(chosen))
    throw new ConfigError(`--role must be api, worker or all, not ${JSON.stringify(chosen)}`);
  return {
    role: chosen as SharedRole,
    concurrency: wholeNumber('REINS_WORKER_CONCURRENCY', env['REINS_WORKER_CONCURRENCY'], 10),
    lockMs: wholeNumber('REINS_WORKER_LOCK_MS', env['REINS_WORKER_LOCK_MS'], 30_000),
    drainGraceMs: wholeNumber('REINS_DRAIN_GRACE_MS', env['REINS_DRAIN_GRACE_MS'], 10_000),
  };
}

function quotaConfig(env: NodeJS.ProcessEnv): QuotaOptions {
  const limit = (name: string): number | undefined => {
    const value = env[name]?.trim();
    if (value === undefined || value === '') return undefined;
    if (value.toLowerCase() === 'off') return Infinity;
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0)
      throw new ConfigError(
        `${name} must be a positive whole number or off, not ${JSON.stringify(env[name])}`,
      );
    return n;
  };
  const entries = {
    dailyModelCalls: limit('REINS_DAILY_MODEL_CALLS'),
    maxConcurrentRuns: limit('REINS_MAX_CONCURRENT_RUNS'),
    userRunsPerMinute: limit('REINS_USER_RUNS_PER_MINUTE'),
    ratePerWindow: limit('REINS_SAME_QUERY_PER_MINUTE'),
  };
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

function wholeNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new ConfigError(`${name} must be a positive whole number, not ${JSON.stringify(value)}`);
  return n;
}

/** A timer's period: 0 (off) or at most what `setInterval` takes (2^31 - 1 ms). */
function timerMs(name: string, value: string | undefined, fallback: number): number {
  const n = countOf(name, value, fallback);
  if (n > 2_147_483_647) throw new ConfigError(`${name} must be at most 2147483647 (ms), not ${value}`);
  return n;
}

function httpUrl(name: string, value: string | undefined): string | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(
      `${name} must be an http(s) URL such as http://127.0.0.1:8788/mcp, not ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(
      `${name} must be an http(s) URL such as http://127.0.0.1:8788/mcp, not ${JSON.stringify(value)}`,
    );
  return url.toString();
}

function allowedHosts(value: string | undefined): string[] {
  const hosts = parseAllowedHosts(value);
  const bad = hosts.find((host) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host));
  if (bad !== undefined)
    throw new ConfigError(
      `REINS_ALLOWED_HOSTS must list host names such as kitchen.example or kitchen.example:8443, not ${JSON.stringify(bad)}`,
    );
  return hosts;
}

function allowedOrigins(value: string | undefined): string[] {
  const origins = parseAllowedOrigins(value);
  const bad = origins.find((origin) => normalizeOrigin(origin) === undefined);
  if (bad !== undefined)
    throw new ConfigError(
      `REINS_ALLOWED_ORIGINS must list origins such as https://kitchen.example or http://kitchen.example:8080 (scheme, host, port; no path), not ${JSON.stringify(bad)}`,
    );
  return origins.map((origin) => normalizeOrigin(origin) ?? origin);
}

function onOff(name: string, value: string | undefined, fallback: boolean): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new ConfigError(`${name} must be on or off, not ${JSON.stringify(value)}`);
}

function positiveNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new ConfigError(`${name} must be a positive number of days, not ${JSON.stringify(value)}`);
  return n;
}

/** For the start-up line: the password of a database URL masked. */
export function describeConfig(config: KitchenConfig): string {
  const storage =
    config.databaseUrl === undefined
      ? `PGlite at ${config.dataDir} (${config.pgliteThread ? 'in a worker thread' : 'in the main thread'})`
      : `PostgreSQL at ${config.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}${config.schema === undefined ? '' : ` (schema ${config.schema})`}, connect ${config.dbConnectTimeoutMs} ms, query ${config.dbQueryTimeoutMs} ms`;
  const redis =
    config.redisUrl === undefined
      ? 'in-process'
      : config.redisUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  const nutrition =
    config.nutritionMcpUrl === undefined
      ? 'stdio child'
      : `${config.nutritionMcpUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}${config.nutritionMcpToken === undefined ? '' : ' (bearer token)'}`;
  const mode =
    config.shared === undefined
      ? ''
      : `mode: shared, role ${config.shared.role}${config.shared.role === 'api' ? '' : `, ${config.shared.concurrency} runs per worker`}; `;
  const { login } = config;
  const logins = `logins: ${login.maxFailures} failures in ${login.windowMs / 60_000} min lock ${login.lockMs / 60_000} min, ${login.hashConcurrency} checked at once + ${login.hashQueue} waiting${config.trustProxy > 0 ? `, client address from X-Forwarded-For (${config.trustProxy} proxies)` : ''}`;
  return `${mode}storage: ${storage}; seed: ${config.seed}; quota counters: ${redis}; runs: durable, resume ${config.resumeRuns ? 'on' : 'off'}, events encoded ${config.codecThread ? 'in a worker thread' : 'in the main thread'}, kept ${config.runRetentionDays} days; nutrition: ${nutrition}; ${logins}`;
}
