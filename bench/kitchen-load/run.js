// @ts-check
/**
 * The kitchen under load, from outside: `kitchen start` (what `npm start` runs) as a child
 * process on PGlite (a temporary data directory) and on PostgreSQL (a schema of its own on
 * 127.0.0.1:5432, db `test`), 500 users logged in, and `POST /v1/runs` (JSON, the demo model,
 * a question asked once each) at a few concurrency levels, while `/health` is timed and the
 * server's event-loop delay recorded. Prints one markdown table.
 *
 *   npm run bench:kitchen-load                    # build, then both backends, c=10 and 200, 20 s each (~3 min)
 *   node bench/kitchen-load/run.js --quick        # 6 s per level, a smoke check (~1.5 min)
 *   node bench/kitchen-load/run.js --backends pglite --levels 10,50,200 --seconds 30 --users 500
 *   node bench/kitchen-load/run.js --backends pglite-main-thread,pglite   # PGlite in the main thread (REINS_PGLITE_THREAD=off), then in its own
 *
 *   node bench/kitchen-load/run.js --count-statements   # SQL statements per run, by text (sql-counter.js)
 *   node bench/kitchen-load/run.js --cpu-prof /tmp/prof # the server's CPU profile (node --cpu-prof) per backend
 *   node bench/kitchen-load/run.js --set REINS_DB_POOL_SIZE=20   # a server setting beyond the defaults (repeatable)
 *   node bench/kitchen-load/run.js --node-arg --single-threaded-gc # a `node` option for the server (repeatable)
 *
 * `DATABASE_URL` overrides postgres://postgres@127.0.0.1:5432/test. Writes
 * bench/results/kitchen-load-<timestamp>.json and kitchen-load-latest.json.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { int, percentile, table } from '../loop-overhead/report.js';
import { PASSWORD, prepareDatabase } from './setup.js';
import { startKitchen } from './server.js';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
/** `node` options for the server beyond the loop monitor's `--import` (`--node-arg <option>`, repeatable). */
const extraNodeArgs = argv.flatMap((arg, i) => {
  const value = argv[i + 1];
  return arg === '--node-arg' && value !== undefined ? [value] : [];
});
// The script's own options, without the `--node-arg` pairs (`--node-arg --cpu-prof` is not ours).
const args = argv.filter((arg, i) => arg !== '--node-arg' && argv[i - 1] !== '--node-arg');
const quick = args.includes('--quick');
const option = (/** @type {string} */ name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
/** @typedef {'pglite' | 'pglite-main-thread' | 'postgres'} Backend */
const BACKENDS = /** @type {Backend[]} */ (['pglite', 'pglite-main-thread', 'postgres']);
const backends = (option('--backends') ?? 'pglite,postgres').split(',');
const levels = (option('--levels') ?? '10,200').split(',').map(Number);
const seconds = Number(option('--seconds') ?? (quick ? 6 : 20));
const users = Number(option('--users') ?? 500);
const countStatements = args.includes('--count-statements');
const cpuProfDir = option('--cpu-prof');
const PG_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The settings the server gets beyond its defaults (said in the report). */
const SETTINGS = {
  // 500 users × a few runs each per level: the per-user minute limit (default 20) would turn a
  // faster server's extra runs into 429s. The check still runs on every request.
  REINS_USER_RUNS_PER_MINUTE: '600',
  REINS_DRAIN_GRACE_MS: '2000',
  ...extraSettings(),
};

/** `--set NAME=VALUE` (repeatable): more server settings, e.g. to compare a pool size. */
function extraSettings() {
  /** @type {Record<string, string>} */
  const extra = {};
  args.forEach((arg, i) => {
    if (arg !== '--set') return;
    const [name, ...value] = (args[i + 1] ?? '').split('=');
    if (name === undefined || !/^[A-Z][A-Z0-9_]*$/.test(name) || value.length === 0) {
      throw new Error(`--set wants NAME=VALUE, got ${JSON.stringify(args[i + 1])}`);
    }
    extra[name] = value.join('=');
  });
  return extra;
}

const cleanups = /** @type {(() => Promise<void>)[]} */ ([]);
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  void runCleanups().then(() => process.exit(130));
});
async function runCleanups() {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}

/** Busy share of the machine's CPUs between two calls. */
function machineCpu() {
  const total = () =>
    os.cpus().reduce(
      (acc, cpu) => {
        const t = cpu.times;
        acc.busy += t.user + t.nice + t.sys + t.irq;
        acc.all += t.user + t.nice + t.sys + t.irq + t.idle;
        return acc;
      },
      { busy: 0, all: 0 },
    );
  const start = total();
  return () => {
    const end = total();
    return (100 * (end.busy - start.busy)) / Math.max(1, end.all - start.all);
  };
}

/**
 * GET `path` every `everyMs`, one at a time (as a probe or a scraper would), until stopped;
 * the stop resolves with each answer's time and status and its summary.
 */
/** A non-200 answer in a few words: a health report's `down` checks and their details, else the body's start. */
function reason(/** @type {string} */ body) {
  try {
    const report = JSON.parse(body);
    if (Array.isArray(report?.down))
      return `down: ${report.down.map((/** @type {string} */ name) => `${name} (${report.checks?.[name]?.detail ?? '?'})`).join(', ')}`;
    if (report?.error?.code !== undefined) return `${report.error.code}: ${report.error.message ?? ''}`;
  } catch {
    // not JSON: the text itself
  }
  return body.slice(0, 120);
}

function sampler(/** @type {string} */ url, /** @type {string} */ path, /** @type {number} */ everyMs) {
  const samples = /** @type {{ ms: number, status: number }[]} */ ([]);
  /** Why answers were not 200: status and the body's first 200 characters, counted. */
  const why = /** @type {Record<string, number>} */ ({});
  let stopped = false;
  const done = (async () => {
    // On a fixed schedule (one probe every `everyMs`, the next as soon as a late one answers), so a
    // slow answer does not thin the samples out.
    let due = performance.now();
    while (!stopped) {
      const started = performance.now();
      const status = await globalThis
        .fetch(`${url}${path}`)
        .then(async (r) => {
          const body = await r.text();
          if (r.status !== 200) {
            const key = `${r.status} ${reason(body)}`;
            why[key] = (why[key] ?? 0) + 1;
          }
          return r.status;
        })
        .catch((/** @type {Error} */ error) => {
          why[`no answer: ${error.message}`] = (why[`no answer: ${error.message}`] ?? 0) + 1;
          return 0;
        });
      samples.push({ ms: performance.now() - started, status });
      due += everyMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  })();
  return async () => {
    stopped = true;
    await done;
    const sorted = samples.map((x) => x.ms).sort((a, b) => a - b);
    return {
      samples: samples.length,
      not200: samples.filter((x) => x.status !== 200).length,
      not200Why: why,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? NaN,
    };
  };
}

/** Runs `load.js` in its own process; resolves with its JSON line. */
function runLoad(/** @type {object} */ spec, /** @type {string} */ dir) {
  const file = join(dir, `load-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'load.js'), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`)),
    );
  });
}

// The kitchen checks 2 passwords at once and lets one client address queue 4 more; past that a
// login is 503 (`HASH_GATE_DEFAULTS`).
const LOGINS_AT_ONCE = 6;

/** Logs every user in (LOGINS_AT_ONCE at a time); returns their session tokens. */
async function logIn(/** @type {string} */ url, /** @type {string[]} */ names) {
  const tokens = /** @type {string[]} */ ([]);
  for (let from = 0; from < names.length; from += LOGINS_AT_ONCE) {
    const batch = await Promise.all(
      names.slice(from, from + LOGINS_AT_ONCE).map(async (username) => {
        const response = await globalThis.fetch(`${url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username, password: PASSWORD }),
        });
        if (response.status !== 200) throw new Error(`login ${username}: ${response.status}`);
        return /** @type {{ token: string }} */ (await response.json()).token;
      }),
    );
    tokens.push(...batch);
  }
  return tokens;
}

/** One backend: its database, the server, the logins, then each level. */
async function bench(/** @type {Backend} */ backend, /** @type {string} */ dir) {
  /** @type {Record<string, string>} */
  let env;
  if (backend !== 'postgres') {
    const dataDir = join(dir, backend);
    await prepareDatabase({ dataDir }, users);
    // `pglite` is the default (PGlite in a worker thread); `pglite-main-thread` the fallback.
    env = { REINS_DATA_DIR: dataDir, REINS_PGLITE_THREAD: backend === 'pglite' ? 'on' : 'off' };
  } else {
    const schema = `bench_kitchen_load_${process.pid}_${Date.now().toString(36)}`;
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    });
    await prepareDatabase({ databaseUrl: PG_URL, schema }, users);
    env = { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema };
  }
  const loopFile = join(dir, `loop-${backend}.json`);
  const sqlFile = join(dir, `sql-${backend}.json`);
  const nodeArgs = [
    ...extraNodeArgs,
    ...(countStatements ? ['--import', new URL('./sql-counter.js', import.meta.url).href] : []),
    ...(cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', join(cpuProfDir, backend)]),
  ];
  const server = await startKitchen(
    {
      ...env,
      ...SETTINGS,
      KITCHEN_SEED: 'none',
      ...(countStatements ? { KITCHEN_LOAD_SQL_FILE: sqlFile } : {}),
    },
    loopFile,
    nodeArgs,
  );
  cleanups.push(() => server.stop());
  const names = Array.from({ length: users }, (_, i) => `load${String(i).padStart(4, '0')}`);
  const tokens = await logIn(server.url, names);
  await runLoad({ url: server.url, tokens, concurrency: 10, seconds: quick ? 1 : 3, level: 'warm' }, dir);

  const rows = [];
  for (const concurrency of levels) {
    if (interrupted) break;
    await server.loopDelay(); // starts the histogram over
    const cpu = machineCpu();
    // Every 50 ms: a 20 s level gives ~400 samples, so p99 is the fourth slowest. At 200 ms
    // (after each answer) it gave ~90, and the nearest-rank p99 of fewer than 100 is their maximum.
    const probes = {
      health: sampler(server.url, '/health', 50),
      live: sampler(server.url, '/health/live', 50),
      metrics: sampler(server.url, '/metrics', 1_000),
    };
    const sqlBefore = countStatements ? await sqlCounts(sqlFile) : undefined;
    const cpuBefore = server.cpuMs();
    const mainBefore = server.mainThreadCpuMs();
    /** @type {any} */
    const result = await runLoad(
      { url: server.url, tokens, concurrency, seconds, level: `${backend}-${concurrency}` },
      dir,
    );
    const serverCpu = (100 * (server.cpuMs() - cpuBefore)) / (result.wallS * 1000);
    const mainThreadCpu = (100 * (server.mainThreadCpuMs() - mainBefore)) / (result.wallS * 1000);
    const machine = cpu();
    const health = await probes.health();
    const live = await probes.live();
    const metrics = await probes.metrics();
    const loop = await server.loopDelay();
    const latencies = /** @type {number[]} */ (result.latencies).sort((a, b) => a - b);
    const statements =
      sqlBefore === undefined ? undefined : perRun(sqlBefore, await sqlCounts(sqlFile), latencies.length);
    const row = {
      ...(statements === undefined ? {} : { statements }),
      backend,
      concurrency,
      runs: latencies.length,
      runsPerS: latencies.length / result.wallS,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies.at(-1) ?? NaN,
      errors: /** @type {Record<string, number>} */ (result.errors),
      health,
      live,
      metrics,
      loop,
      serverCpuPercent: serverCpu,
      mainThreadCpuPercent: mainThreadCpu,
      machineCpuPercent: machine,
    };
    rows.push(row);
    console.error(
      `${backend} c=${concurrency}: ${int(row.runsPerS)} runs/s, p99 ${int(row.p99Ms)} ms, /health p99 ${int(health.p99Ms)} ms, loop p99 ${int(loop?.p99Ms ?? NaN)} ms` +
        (statements === undefined ? '' : `, ${statements.total.toFixed(1)} SQL statements per run`),
    );
  }
  await server.stop();
  return rows;
}

/** The counts `sql-counter.js` wrote (its threads' files summed), a second after the last statement. */
async function sqlCounts(/** @type {string} */ sqlFile) {
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  /** @type {Record<string, number>} */
  const sum = {};
  const base = sqlFile.split('/').at(-1) ?? '';
  for (const name of readdirSync(dirname(sqlFile)).filter((n) => n.startsWith(`${base}.`))) {
    const counts = /** @type {Record<string, number>} */ (
      JSON.parse(readFileSync(join(dirname(sqlFile), name), 'utf8'))
    );
    for (const [sql, n] of Object.entries(counts)) sum[sql] = (sum[sql] ?? 0) + n;
  }
  return sum;
}

/** Statements per run answered over a level: the total and by text, most first. */
function perRun(
  /** @type {Record<string, number>} */ before,
  /** @type {Record<string, number>} */ after,
  /** @type {number} */ runs,
) {
  const delta = (/** @type {string} */ key) => ((after[key] ?? 0) - (before[key] ?? 0)) / Math.max(1, runs);
  const bySql = Object.keys(after)
    .filter((key) => !key.startsWith('ms:'))
    .map((sql) => /** @type {[string, number]} */ ([sql, delta(sql)]))
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  /** Milliseconds per run from each statement's call to its answer (`sql-counter.js`), same order. */
  const msBySql = Object.fromEntries(bySql.map(([sql]) => [sql, delta(`ms:${sql}`)]));
  return {
    total: bySql.reduce((acc, [, n]) => acc + n, 0),
    totalMs: Object.values(msBySql).reduce((acc, ms) => acc + ms, 0),
    bySql: Object.fromEntries(bySql),
    msBySql,
  };
}

const dir = mkdtempSync(join(os.tmpdir(), 'kitchen-load-'));
cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
const loadBefore = os.loadavg();
const rows = [];
try {
  for (const backend of backends) {
    if (!BACKENDS.includes(/** @type {Backend} */ (backend))) throw new Error(`unknown backend ${backend}`);
    if (interrupted) break;
    rows.push(...(await bench(/** @type {Backend} */ (backend), dir)));
  }
} finally {
  await runCleanups();
}
const loadAfter = os.loadavg();

const ms = (/** @type {number} */ x) => int(x);
const errorText = (/** @type {Record<string, number>} */ errors) =>
  Object.keys(errors).length === 0
    ? '0'
    : Object.entries(errors)
        .map(([key, n]) => `${n} × ${key}`)
        .join(', ');
const meta = {
  node: process.version,
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  loadBefore: loadBefore.map((l) => l.toFixed(2)).join(' '),
  loadAfter: loadAfter.map((l) => l.toFixed(2)).join(' '),
  seconds,
  users,
  settings: SETTINGS,
  nodeArgs: extraNodeArgs,
};
console.log(`\n## Xiaojia Kitchen under load (POST /v1/runs, JSON, demo model)\n`);
console.log(
  `node ${meta.node}, ${meta.cpus} CPUs (${meta.cpu}); load average ${meta.loadBefore} before, ${meta.loadAfter} after; ` +
    `${users} users, ${seconds} s per level, closed loop; settings beyond the defaults: ${Object.entries(
      SETTINGS,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}${extraNodeArgs.length > 0 ? `; server node options: ${extraNodeArgs.join(' ')}` : ''}\n`,
);
console.log(
  table(
    [
      'backend',
      'c',
      'runs/s',
      'p50 / p99 / max ms',
      'errors',
      '/health p50 / p99 / max ms (samples)',
      '/health/live p99 ms',
      '/metrics p99 ms',
      'event-loop delay p99 / max ms',
      'server CPU % (main thread)',
      'machine CPU %',
    ],
    rows.map((r) => [
      r.backend,
      r.concurrency,
      int(r.runsPerS),
      `${ms(r.p50Ms)} / ${ms(r.p99Ms)} / ${ms(r.maxMs)}`,
      errorText(r.errors),
      `${ms(r.health.p50Ms)} / ${ms(r.health.p99Ms)} / ${ms(r.health.maxMs)} (${r.health.samples})${r.health.not200 > 0 ? ` (${r.health.not200} not 200)` : ''}`,
      ms(r.live.p99Ms),
      ms(r.metrics.p99Ms),
      r.loop === undefined ? 'n/a' : `${ms(r.loop.p99Ms)} / ${ms(r.loop.maxMs)}`,
      `${int(r.serverCpuPercent)} (${int(r.mainThreadCpuPercent)})`,
      int(r.machineCpuPercent),
    ]),
  ),
);
for (const r of rows)
  for (const [name, probe] of Object.entries({
    '/health': r.health,
    '/health/live': r.live,
    '/metrics': r.metrics,
  }))
    for (const [answer, n] of Object.entries(probe.not200Why ?? {}))
      console.log(`${r.backend} c=${r.concurrency} ${name} not 200 ×${n}: ${answer}`);
for (const r of rows.filter((r) => r.statements !== undefined)) {
  console.log(
    `\nSQL statements per run, ${r.backend} c=${r.concurrency}: ${r.statements?.total.toFixed(1)}` +
      ` (${r.statements?.totalMs.toFixed(1)} ms per run from call to answer; per statement: count, ms)`,
  );
  for (const [sql, n] of Object.entries(r.statements?.bySql ?? {}))
    console.log(
      `  ${n.toFixed(2).padStart(6)} ${(r.statements?.msBySql[sql] ?? 0).toFixed(2).padStart(7)}  ${sql}`,
    );
}
const resultsDir = join(here, '..', 'results');
mkdirSync(resultsDir, { recursive: true });
const json = JSON.stringify({ meta, rows }, null, 2);
writeFileSync(join(resultsDir, `kitchen-load-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), json);
writeFileSync(join(resultsDir, 'kitchen-load-latest.json'), json);
