// @ts-check
/**
 * One instance of the shared mode for the scale-out bench: an API (`api`), a worker
 * (`worker`), both (`all`) — or, for the baseline, a server with no shared mode (`single`) —
 * over PostgreSQL (`sqlRunStore` in its own schema) and Redis (queue, bus, limits). Run as a
 * child process by run.js:
 *
 *   node bench/scale-out/instance.js --role api --schema s --prefix p: [--port 0] [--concurrency 25]
 *
 * (every flag can also be given as an environment variable: ROLE, SCHEMA, PREFIX, PORT,
 * CONCURRENCY, STEP_MS, SLOW_STEP_MS, APPROVE_STEP_MS, POOL_MAX, LOCK_MS, DATABASE_URL,
 * REDIS_URL, LOG_LEVEL). Prints its port on the first stdout line once it listens. Mounts
 * `/bench/stats` (RSS, heap, cumulative CPU, runs held, event-loop delay since the last
 * `?reset`, run-store statements) in front of the Reins app. SIGTERM: drains, closes, exits.
 * `startInstance` is also imported by the smoke test (in process).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Hono } from 'hono';
import pg from 'pg';
import { pino } from 'pino';
import { createReinsServer, serve } from '@reins/server';
import { sqlRunStore } from '@reins/stores';
import { benchAgents } from './agents.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Quotas and limits that must not interfere with a load test (every check off). */
export const NO_QUOTA = {
  dailyModelCalls: Infinity,
  ratePerWindow: Infinity,
  userRunsPerMinute: Infinity,
  maxConcurrentRuns: Infinity,
};

/**
 * @typedef {object} InstanceConfig
 * @property {'api' | 'worker' | 'all' | 'single'} role `single`: no shared mode at all — one process
 *   running its own runs over the same store (in-process limits): the baseline
 * @property {string} schema PostgreSQL schema of the run store (must exist)
 * @property {string} prefix Redis key prefix of this bench run (e.g. `bench-abc:`)
 * @property {number} [port] default 0 (any free port)
 * @property {number} [concurrency] runs a worker holds at once (BullMQ concurrency); default 25
 * @property {number} [stepMs] `bench` agent: ms per model step; default 300
 * @property {number} [slowStepMs] `slow` agent: ms per model step; default 30 000
 * @property {number} [approveStepMs] `approve` agent: ms per model step; default 0
 * @property {number} [poolMax] pg pool size; default 10
 * @property {number} [lockMs] the shared mode's job and run lock; default its own (30 000)
 * @property {string} [databaseUrl]
 * @property {string} [redisUrl]
 * @property {string} [logLevel] default `warn`
 */

/**
 * Starts one instance (in this process) and returns its URL and how to stop it.
 * @param {InstanceConfig} config
 */
export async function startInstance(config) {
  const pool = new pg.Pool({
    connectionString: config.databaseUrl ?? DATABASE_URL,
    max: config.poolMax ?? 10,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 10_000,
  });
  pool.on('error', () => undefined); // an idle client dropped: the next query reconnects
  // Counted: statements and their time, for `/bench/stats` (what the run store costs per run).
  const store$ = { queries: 0, ms: 0 };
  const store = await sqlRunStore(
    {
      query: async (text, values) => {
        const began = performance.now();
        try {
          return await pool.query(text, values);
        } finally {
          store$.queries++;
          store$.ms += performance.now() - began;
        }
      },
    },
    { schema: config.schema },
  );
  const reins = createReinsServer({
    agents: benchAgents({
      stepMs: config.stepMs ?? 300,
      ...(config.slowStepMs === undefined ? {} : { slowStepMs: config.slowStepMs }),
      ...(config.approveStepMs === undefined ? {} : { approveStepMs: config.approveStepMs }),
    }),
    authenticate: (request) => {
      const match = /^Bearer user:([\w-]+)$/.exec(request.headers.get('authorization') ?? '');
      return match?.[1] === undefined ? undefined : { id: match[1] };
    },
    durable: { store },
    redisPrefix: config.prefix,
    quota: NO_QUOTA,
    ...(config.role === 'single'
      ? {}
      : {
          shared: {
            role: config.role,
            redisUrl: config.redisUrl ?? REDIS_URL,
            concurrency: config.concurrency ?? 25,
            ...(config.lockMs === undefined ? {} : { lockMs: config.lockMs }),
          },
        }),
    // On stderr: stdout carries the port line only (run.js collects stderr per instance).
    logger: pino({ level: config.logLevel ?? 'warn' }, pino.destination(2)),
  });
  await reins.recover(); // shared mode: the worker starts taking jobs, the API listens for replies

  // How late the event loop runs (a timer due now fires late; so does every reply waiting to be read).
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const app = new Hono();
  app.get('/bench/stats', (c) => {
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    const delay = { loopDelayP99Ms: loop.percentile(99) / 1e6, loopDelayMaxMs: loop.max / 1e6 };
    if (c.req.query('reset') !== undefined) loop.reset(); // from here on: the next stretch's delays
    return c.json({
      ...delay,
      role: config.role,
      rss: mem.rss,
      heapUsed: mem.heapUsed,
      cpuMs: (cpu.user + cpu.system) / 1000,
      atMs: performance.now(),
      holding: reins.shared?.worker?.holding ?? 0,
      storeQueries: store$.queries,
      storeQueryMs: store$.ms,
      runs: reins.runs.size,
    });
  });
  app.route('/', reins.app);
  const running = await serve(app, { port: config.port ?? 0, host: '127.0.0.1' });
  let closing;
  return {
    port: running.port,
    url: running.url,
    reins,
    /** Drains (a worker hands back what it holds), then closes the server, the HTTP listener and the pool. */
    close: () =>
      (closing ??= (async () => {
        await reins.drain();
        await reins.close();
        await running.close();
        await pool.end();
      })()),
  };
}

/** @param {string} name @param {string} env */
function flag(name, env) {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : process.env[env];
}

/** @param {string | undefined} text */
const num = (text) => (text === undefined || text === '' ? undefined : Number(text));

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const role = flag('role', 'ROLE');
  const schema = flag('schema', 'SCHEMA');
  const prefix = flag('prefix', 'PREFIX');
  if ((role !== 'api' && role !== 'worker' && role !== 'all' && role !== 'single') || !schema || !prefix) {
    console.error(
      'usage: instance.js --role api|worker|all|single --schema <pg schema> --prefix <redis prefix>',
    );
    process.exit(2);
  }
  /** @type {InstanceConfig} */
  const config = { role, schema, prefix };
  const numbers = /** @type {const} */ ([
    ['port', 'PORT'],
    ['concurrency', 'CONCURRENCY'],
    ['stepMs', 'STEP_MS'],
    ['slowStepMs', 'SLOW_STEP_MS'],
    ['approveStepMs', 'APPROVE_STEP_MS'],
    ['poolMax', 'POOL_MAX'],
    ['lockMs', 'LOCK_MS'],
  ]);
  for (const [key, env] of numbers) {
    const value = num(
      flag(
        key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
        env,
      ),
    );
    if (value !== undefined) config[key] = value;
  }
  const logLevel = flag('log-level', 'LOG_LEVEL');
  if (logLevel !== undefined) config.logLevel = logLevel;
  const instance = await startInstance(config);
  console.log(String(instance.port));
  process.on('SIGTERM', () => {
    void instance.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
