// @ts-check
/**
 * The scale-out bench's cluster: a PostgreSQL schema and a Redis prefix of its own per bench
 * run (both removed at the end), and instances started as child processes (instance.js).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { sqlRunStore } from '@reins/stores';
import { DATABASE_URL, REDIS_URL } from './instance.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A fresh schema (with the run store's tables made once, so the instances starting together
 * do not race to create them) and a fresh Redis prefix. `dispose` drops the schema and
 * deletes every key under the prefix (the queue's included).
 */
export async function prepareStorage() {
  const id = randomBytes(4).toString('hex');
  const schema = `bench_scale_out_${id}`;
  const prefix = `bench-scale-out-${id}:`;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await sqlRunStore({ query: (text, values) => client.query(text, values) }, { schema });
  await client.end();
  return {
    schema,
    prefix,
    /** Events and runs stored during the bench (a check that the store was really written). */
    async counts() {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      try {
        const { rows } = await c.query(
          `SELECT (SELECT count(*) FROM ${schema}.reins_runs)::int AS runs,
                  (SELECT count(*) FROM ${schema}.reins_run_events)::int AS events`,
        );
        return /** @type {{ runs: number, events: number }} */ (rows[0]);
      } finally {
        await c.end();
      }
    },
    async dispose() {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
      const redis = new Redis(REDIS_URL);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await redis.unlink(...keys);
      } while (cursor !== '0');
      redis.disconnect();
    },
  };
}

/**
 * @typedef {object} Stats
 * @property {string} role
 * @property {number} rss
 * @property {number} heapUsed
 * @property {number} cpuMs  CPU time used so far (user + system)
 * @property {number} atMs   the child's `performance.now()` when read
 * @property {number} holding runs a worker holds
 * @property {{ live: number, paused: number, finished: number }} runs runs in the instance's registry
 * @property {number} storeQueries run-store statements so far
 * @property {number} storeQueryMs their time so far (pool wait included)
 * @property {number} loopDelayP99Ms event-loop delay p99 since the last reset
 * @property {number} loopDelayMaxMs event-loop delay max since the last reset
 */

/**
 * One instance in a child process. Its stderr (warnings, errors) goes to `logFile`.
 * @param {string} name
 * @param {Record<string, string | number>} env ROLE, SCHEMA, PREFIX, CONCURRENCY, …
 * @param {string} logFile
 */
export async function spawnInstance(name, env, logFile) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [join(here, 'instance.js')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) },
  });
  let stderrLines = 0;
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => {
    stderrLines += String(chunk)
      .split('\n')
      .filter((l) => l.trim() !== '').length;
    log.write(chunk);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  // This process leaving (an error, Ctrl-C) takes its instances with it: none is left running.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => process.removeListener('exit', orphan));
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`${name} exited (${code}) before listening; see ${logFile}`)),
    );
    child.stdout.once('data', (chunk) => {
      resolve(Number(String(chunk).trim()));
      child.stdout.pipe(log, { end: false }); // anything after the port line (nothing expected): read, never left to fill the pipe
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    name,
    url,
    pid: child.pid,
    /** Lines the instance wrote to stderr so far (pino warnings and errors). */
    get stderrLines() {
      return stderrLines;
    },
    /** @param {boolean} [reset] start a new stretch of event-loop delays @returns {Promise<Stats>} */
    async stats(reset = false) {
      const response = await globalThis.fetch(`${url}/bench/stats${reset ? '?reset' : ''}`);
      return /** @type {Stats} */ (await response.json());
    },
    /** SIGTERM (drain, close); SIGKILL if it has not exited after `graceMs`. */
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
}

/** @typedef {Awaited<ReturnType<typeof spawnInstance>>} Instance */

/**
 * This machine's CPU from now on: the returned function gives the share of all cores busy
 * (100 = every core) since this call — PostgreSQL, Redis and everything else included.
 */
export function machineCpu() {
  const times = () =>
    os.cpus().reduce(
      (sum, cpu) => {
        const t = cpu.times;
        return { idle: sum.idle + t.idle, total: sum.total + t.idle + t.user + t.nice + t.sys + t.irq };
      },
      { idle: 0, total: 0 },
    );
  const start = times();
  return () => {
    const now = times();
    const total = now.total - start.total;
    return total === 0 ? NaN : ((total - (now.idle - start.idle)) / total) * 100;
  };
}

/**
 * Samples the instances' stats every `everyMs` until `stop()`: peak RSS, mean CPU %, event-loop
 * delay and the run-store statements (count, time) over the whole stretch, per instance; and
 * the machine's CPU over the stretch.
 * @param {Instance[]} instances
 */
export async function sampleStats(instances, everyMs = 500) {
  const first = await Promise.all(instances.map((i) => i.stats(true)));
  const machine = machineCpu();
  /** @type {number[][]} */
  const rss = instances.map((_, k) => [first[k]?.rss ?? 0]);
  let last = first;
  const timer = setInterval(() => {
    void Promise.all(instances.map((i) => i.stats())).then(
      (now) => {
        now.forEach((s, k) => rss[k]?.push(s.rss));
        last = now;
      },
      () => undefined,
    );
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      const end = await Promise.all(instances.map((i) => i.stats()));
      end.forEach((s, k) => rss[k]?.push(s.rss));
      last = end;
      const busy = machine();
      return instances.map((instance, k) => {
        const a = /** @type {Stats} */ (first[k]);
        const b = /** @type {Stats} */ (last[k]);
        return {
          name: instance.name,
          rssStartMB: a.rss / 2 ** 20,
          rssPeakMB: Math.max(...(rss[k] ?? [])) / 2 ** 20,
          cpuMs: b.cpuMs - a.cpuMs,
          cpuPercent: ((b.cpuMs - a.cpuMs) / (b.atMs - a.atMs)) * 100,
          loopDelayP99Ms: b.loopDelayP99Ms,
          loopDelayMaxMs: b.loopDelayMaxMs,
          machineBusyPercent: busy,
          storeQueries: b.storeQueries - a.storeQueries,
          storeQueryMs: b.storeQueryMs - a.storeQueryMs,
        };
      });
    },
  };
}
