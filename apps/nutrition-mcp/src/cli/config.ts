import { tokenProblem } from '../http/bearer-token.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../http/start-http.js';

/** Everything the command reads from its arguments and environment, in one place. */
export interface NutritionMcpConfig {
  readonly transport: 'stdio' | 'http';
  readonly host: string;
  readonly port: number;
  /** `REDIS_URL`: when set, lookups are cached in Redis instead of in process. */
  readonly redisUrl: string | undefined;
  /**
   * `NUTRITION_MCP_TOKEN`: HTTP requests to `/mcp` must carry `Authorization: Bearer <token>`.
   * Required when `--host` is not loopback (127.0.0.1, ::1, localhost).
   */
  readonly token: string | undefined;
}

export type ConfigOutcome =
  | { readonly ok: true; readonly config: NutritionMcpConfig }
  | { readonly ok: false; readonly error: { readonly code: 'INVALID_PARAMETER'; readonly message: string } };

export const USAGE =
  'usage: nutrition-mcp --stdio | --http [--port N] [--host H]   (env: REDIS_URL, NUTRITION_MCP_TOKEN)';

export function readConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ConfigOutcome {
  const fail = (message: string): ConfigOutcome => ({
    ok: false,
    error: { code: 'INVALID_PARAMETER', message },
  });
  let transport: 'stdio' | 'http' | undefined;
  let host = DEFAULT_HOST;
  let port = DEFAULT_PORT;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--stdio' || arg === '--http') {
      const wanted = arg === '--stdio' ? 'stdio' : 'http';
      if (transport !== undefined && transport !== wanted) return fail('choose one of --stdio and --http');
      transport = wanted;
    } else if (arg === '--port' || arg === '--host') {
      const value = argv[++i];
      if (value === undefined) return fail(`${arg} needs a value`);
      if (arg === '--host') {
        host = value;
      } else {
        port = Number(value);
        if (!/^\d+$/.test(value) || port > 65_535) return fail(`--port must be 0..65535, got "${value}"`);
      }
    } else {
      return fail(`unknown argument "${arg}"`);
    }
  }
  if (transport === undefined) return fail('choose --stdio or --http');
  const redisUrl = env['REDIS_URL']?.trim() || undefined;
  if (redisUrl !== undefined && !isRedisUrl(redisUrl)) {
    // Not echoed: it may hold a password.
    return fail('REDIS_URL must be a redis:// or rediss:// URL (host, optional port 0..65535)');
  }
  const token = env['NUTRITION_MCP_TOKEN']?.trim() || undefined;
  if (transport === 'http') {
    const problem = tokenProblem(host, token);
    if (problem !== undefined) return fail(problem);
  }
  return { ok: true, config: { transport, host, port, redisUrl, token } };
}

/** The configuration as printed at start-up: a password in `REDIS_URL` is masked. */
export function describeConfig(config: NutritionMcpConfig): string {
  const redis = config.redisUrl === undefined ? 'off (in-process cache)' : maskUrl(config.redisUrl);
  const token = config.token === undefined ? ', no token' : ', bearer token required';
  const where = config.transport === 'http' ? ` on ${config.host}:${config.port}${token}` : '';
  return `nutrition-mcp: ${config.transport}${where}, redis ${redis}`;
}

function isRedisUrl(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    return (protocol === 'redis:' || protocol === 'rediss:') && hostname !== '';
  } catch {
    return false;
  }
}

function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
