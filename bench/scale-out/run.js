// @ts-check
/**
 * Scale-out benchmark: the shared mode of @reins/server (API instances queue runs on BullMQ,
 * workers execute them, events fan out over Redis pub/sub, PostgreSQL is the record), every
 * instance a real child process (instance.js) over this machine's PostgreSQL and Redis.
 *
 *   npm run bench:scale-out                         # build, then the full run (about 4 min)
 *   node bench/scale-out/run.js --quick             # shorter levels, fewer samples (~1 min)
 *   node bench/scale-out/run.js --sections 2,4      # only some sections
 *   node bench/scale-out/fanout.js                  # section 4 alone
 *
 * Flags (defaults; --quick ones in brackets): --clients 25,50 · --seconds 12 [3] · --repeats 2 [1]
 * · --worker-concurrency 25 · --step-ms 300 · --samples 100 [20] · --control-load 70 · --streams 1000 [200]
 * · --streams-worker-concurrency 500 · --streams-step-ms 300 · --fanout-events 2000 [500]
 * · --fanout-repeats 3 [1] · --sections 1,2,3,4. DATABASE_URL and REDIS_URL override
 * postgres://postgres@127.0.0.1:5432/test and redis://127.0.0.1:6379.
 *
 * Each bench run uses a PostgreSQL schema (`bench_scale_out_<id>`: the run store's tables)
 * and a Redis prefix (`bench-scale-out-<id>:`: queue, bus, limits) of its own; both are
 * removed at the end. Quotas and rate limits are off. The agent (`agents.js`): a model that
 * sleeps `--step-ms` per step (honouring the abort signal), then calls a read-only tool or,
 * once it has seen the tool's observation in its messages, answers — 2 steps, 7 events.
 *
 * 1. Throughput and added latency, 1 vs 2 workers: API instances A and B, then 1 worker, then
 *    2 (same concurrency each). C closed-loop clients (C from --clients; client i on A or B by
 *    parity) each run SSE runs back to back for --seconds; --repeats rounds per level (runs/s:
 *    median of the rounds; latencies: pooled). The first 1.5 s of a level is ramp-up: runs/s
 *    counts runs ending after it, latencies come from runs starting after it. Added latency
 *    per event: its arrival here minus its own `at` (same machine, same wall clock); per run:
 *    the run's duration (request sent → `done` here) minus the model's simulated time (2 ×
 *    --step-ms). Plus each instance's CPU, CPU time per run by role, run-store statements per
 *    run and the machine's CPU over the level. Baseline: the same levels (1 round) against one
 *    process with no shared mode (`single`: same store, in-process limits) — what the hop over
 *    queue and bus costs.
 * 2. Control round trips (target p99 < 200 ms), run streamed from A, control sent to B (A, B,
 *    2 workers): cancel — a run with a 30 s model step (a worker holds it: its `start` came
 *    from the worker, which is then in the model call), POST /cancel on B; the cancel response
 *    (it waits for the run to end `cancelled`) and the `done {cancelled}` on A's stream, both
 *    timed from the cancel's send. Approve — a run paused for approval (a non-read-only tool;
 *    model steps of 0 ms), POST /approve on B: in the JSON form the status line comes with the
 *    run's next stop (the tool call and the final model step included); in the SSE form the
 *    status line comes once a worker has taken the approval and stored it (the round trip
 *    itself), then the first event after the pause (`resume`). Idle: one at a time, JSON and
 *    SSE samples alternating. Under load: --control-load closed-loop clients in the
 *    background (default 70: more than the two workers' slots, so new runs queue), 4 round
 *    trips at a time, SSE form only.
 * 3. --streams concurrent SSE streams: fresh A and B and 2 workers with
 *    --streams-worker-concurrency each; all runs sent at once, half to A and half to B, the
 *    load generator in this process (its own CPU is reported: a client near 100% would be
 *    part of the latency). Added latency per event, runs completed, errors, peak open
 *    streams and peak runs held by the workers, where each run's time went (API, queue,
 *    worker), RSS, CPU and event-loop delay of every instance, the machine's CPU.
 * 4. Fan-out choice (fanout.js): Redis pub/sub against PostgreSQL LISTEN/NOTIFY for ≈1 KB
 *    messages at ~1,000/s to 1 and 2 subscribers, and NOTIFY's 8,000-byte payload cap.
 *
 * Prints markdown tables; writes bench/results/scale-out-<timestamp>.json and
 * scale-out-latest.json; the instances' stderr (warnings, errors) goes to
 * bench/results/scale-out-logs/<timestamp>/<instance>.log, and the line counts are reported.
 * Everything (PostgreSQL, Redis, the instances, this client) shares this machine's cores.
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { fmt, int, percentile, table } from '../loop-overhead/report.js';
import { BENCH_STEPS } from './agents.js';
import { approveRoundTrip, cancelRoundTrip, keepAlive, sseRun } from './client.js';
import { prepareStorage, sampleStats, spawnInstance } from './cluster.js';
import { fanoutReport } from './fanout.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const option = (/** @type {string} */ name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const numberOption = (/** @type {string} */ name, /** @type {number} */ full, /** @type {number} */ short) =>
  Number(option(name) ?? (quick ? short : full));
const clientLevels = (option('--clients') ?? '25,50').split(',').map(Number);
const seconds = numberOption('--seconds', 12, 3);
const repeats = numberOption('--repeats', 2, 1);
const workerConcurrency = numberOption('--worker-concurrency', 25, 25);
const stepMs = numberOption('--step-ms', 300, 300);
const samples = numberOption('--samples', 100, 20);
const streams = numberOption('--streams', 1_000, 200);
const controlLoad = numberOption('--control-load', 70, 70);
const streamsWorkerConcurrency = numberOption('--streams-worker-concurrency', 500, 500);
const streamsStepMs = numberOption('--streams-step-ms', stepMs, stepMs);
const fanoutEvents = numberOption('--fanout-events', 2_000, 500);
const fanoutRepeats = numberOption('--fanout-repeats', 3, 1);
const sections = new Set((option('--sections') ?? '1,2,3,4').split(',').map(Number));
const TARGET_CONTROL_P99_MS = 200;
const RAMP_MS = 1_500;
const WARM_MS = quick ? 1_500 : 2_500;

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const logDir = join(here, '..', 'results', 'scale-out-logs', stamp);
mkdirSync(logDir, { recursive: true });

/** @param {number[]} xs */
const sorted = (xs) => [...xs].sort((a, b) => a - b);
/** @param {number[]} xs */
const median = (xs) => percentile(sorted(xs), 50);
/** @param {number[]} xs p50 / p95 / p99 / max of `xs`, for a table cell. */
const spread = (xs) => {
  const s = sorted(xs);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s.at(-1) ?? NaN,
  };
};
const log = (/** @type {string} */ line) => console.error(`[scale-out] ${line}`);

const storage = await prepareStorage();
// Interrupted (Ctrl-C): the instances are stopped and the schema and keys removed all the same.
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, () => {
    log(`${signal}: stopping the instances, dropping ${storage.schema} and ${storage.prefix}*`);
    void Promise.all(live.map((i) => i.stop(3_000)))
      .then(() => storage.dispose())
      .finally(() => process.exit(130));
  });
}
/** @type {import('./cluster.js').Instance[]} */
const live = [];
/** @type {import('./cluster.js').Instance[]} every instance started, for the log line counts */
const spawned = [];
/**
 * @param {string} name @param {'api' | 'worker' | 'single'} role @param {Record<string, number>} [extra]
 */
async function start(name, role, extra = {}) {
  const instance = await spawnInstance(
    name,
    { ROLE: role, SCHEMA: storage.schema, PREFIX: storage.prefix, STEP_MS: stepMs, ...extra },
    join(logDir, `${name}.log`),
  );
  live.push(instance);
  spawned.push(instance);
  return instance;
}
/** @param {import('./cluster.js').Instance[]} instances */
async function stop(instances) {
  await Promise.all(instances.map((i) => i.stop()));
  for (const i of instances) live.splice(live.indexOf(i), 1);
}

// ---------------------------------------------------------------------------------------------
// 1. Throughput and added latency, 1 vs 2 workers.

/**
 * C clients, each running SSE runs back to back for `ms` (or until `signal` aborts), client i
 * on `apis[i % 2]`.
 * @param {import('./cluster.js').Instance[]} apis @param {number} clients @param {number} ms @param {string} tag
 * @param {AbortSignal} [signal]
 */
async function closedLoop(apis, clients, ms, tag, signal) {
  const httpAgent = keepAlive();
  const began = performance.now();
  const from = began + RAMP_MS;
  const stopAt = began + ms;
  let endAt = stopAt; // or when `signal` aborts
  signal?.addEventListener('abort', () => (endAt = Math.min(endAt, performance.now())), { once: true });
  /** @type {{ startedAt: number, endedAt: number, ok: boolean, status: string, durationMs: number, queuedMs: number, addedMs: number[] }[]} */
  const runs = [];
  let next = 0;
  const client = async (/** @type {number} */ i) => {
    await sleep((i / clients) * 1_000); // staggered: the clients do not move in lockstep
    while (performance.now() < stopAt && signal?.aborted !== true) {
      const startedAt = performance.now();
      const api = /** @type {import('./cluster.js').Instance} */ (apis[i % apis.length]);
      const r = await sseRun(api.url, {
        agent: 'bench',
        input: `${tag} run ${next++}`,
        user: `${tag}-u${i}`,
        httpAgent,
      });
      runs.push({
        startedAt,
        endedAt: performance.now(),
        ok: r.ok,
        status: r.status,
        durationMs: r.durationMs,
        queuedMs: r.queuedMs,
        addedMs: r.addedMs,
      });
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
  httpAgent.destroy();
  const measured = runs.filter((r) => r.startedAt >= from);
  const ended = runs.filter((r) => r.endedAt >= from && r.endedAt <= endAt);
  return {
    allRuns: runs.length,
    runsPerS: ended.length / ((endAt - from) / 1000),
    runs: measured.length,
    failed: measured.filter((r) => !r.ok).length,
    failures: [...new Set(measured.filter((r) => !r.ok).map((r) => r.status))].slice(0, 3),
    durations: measured.filter((r) => r.ok).map((r) => r.durationMs),
    queued: measured.filter((r) => r.ok).map((r) => r.queuedMs),
    eventAdded: measured.flatMap((r) => r.addedMs),
    runAdded: measured.filter((r) => r.ok).map((r) => r.durationMs - BENCH_STEPS * stepMs),
  };
}

/**
 * @typedef {{ workers: number, clients: number, rounds: number, runsPerS: number[], runs: number,
 *   failed: number, failures: string[], durations: number[], queued: number[], eventAdded: number[], runAdded: number[],
 *   cpu: Record<string, number[]>, apiCpuPerRun: number[], workerCpuPerRun: number[], storePerRun: number[],
 *   storeMs: number[], machineBusy: number[] }} Level
 */

/**
 * Every level of section 1 with the workers running now.
 * @param {import('./cluster.js').Instance[]} apis @param {import('./cluster.js').Instance[]} workers
 * @returns {Promise<Level[]>}
 */
async function throughputLevels(apis, workers) {
  /** @type {Map<number, Level>} */
  const levels = new Map();
  await closedLoop(apis, 10, WARM_MS, `warm${workers.length}`); // warm-up (JIT, pools, connections)
  for (let round = 0; round < repeats; round++) {
    for (const clients of clientLevels) {
      const sampler = await sampleStats([...apis, ...workers]);
      const r = await closedLoop(apis, clients, seconds * 1_000, `w${workers.length}c${clients}r${round}`);
      const usage = await sampler.stop();
      const level = levels.get(clients) ?? {
        workers: workers.length,
        clients,
        rounds: 0,
        runsPerS: [],
        runs: 0,
        failed: 0,
        failures: [],
        durations: [],
        queued: [],
        eventAdded: [],
        runAdded: [],
        cpu: {},
        apiCpuPerRun: [],
        workerCpuPerRun: [],
        storePerRun: [],
        machineBusy: [],
        storeMs: [],
      };
      level.rounds++;
      level.runsPerS.push(r.runsPerS);
      level.runs += r.runs;
      level.failed += r.failed;
      level.failures.push(...r.failures);
      level.durations.push(...r.durations);
      level.queued.push(...r.queued);
      level.eventAdded.push(...r.eventAdded);
      level.runAdded.push(...r.runAdded);
      for (const u of usage) (level.cpu[u.name] ??= []).push(u.cpuPercent);
      const cpuOf = (/** @type {import('./cluster.js').Instance[]} */ group) =>
        usage.filter((u) => group.some((i) => i.name === u.name)).reduce((sum, u) => sum + u.cpuMs, 0);
      level.apiCpuPerRun.push(cpuOf(apis) / r.allRuns);
      level.workerCpuPerRun.push(cpuOf(workers) / r.allRuns);
      const queries = usage.reduce((sum, u) => sum + u.storeQueries, 0);
      level.storePerRun.push(queries / r.allRuns);
      level.storeMs.push(usage.reduce((sum, u) => sum + u.storeQueryMs, 0) / queries);
      level.machineBusy.push(usage[0]?.machineBusyPercent ?? NaN);
      levels.set(clients, level);
      log(
        `${workers.length} worker(s), C=${clients}, round ${round + 1}: ${fmt(r.runsPerS)} runs/s, ` +
          `run p99 ${fmt(spread(r.durations).p99, 0)} ms, event added p99 ${fmt(spread(r.eventAdded).p99, 0)} ms, ${r.failed} failed`,
      );
    }
  }
  return [...levels.values()];
}

// ---------------------------------------------------------------------------------------------
// 2. Control round trips.

/**
 * `samples` cancel round trips, then `samples` approve round trips of each form in `forms`
 * (alternating), `parallel` at a time.
 * @param {import('./cluster.js').Instance} a @param {import('./cluster.js').Instance} b
 * @param {{ tag: string, forms: ('json' | 'sse')[], parallel: number }} o
 */
async function controlRoundTrips(a, b, { tag, forms, parallel }) {
  const httpAgent = keepAlive();
  // Warm-up: both instances, both paths.
  for (let i = 0; i < 3; i++) {
    await cancelRoundTrip(a.url, b.url, `${tag}-warm-c${i}`, httpAgent);
    await approveRoundTrip(a.url, b.url, `${tag}-warm-a${i}`, i % 2 === 0 ? 'json' : 'sse', httpAgent);
  }
  /** Runs `count` samples, `parallel` at a time. @param {number} count @param {(i: number) => Promise<void>} one */
  const inTurn = async (count, one) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < count) await one(next++);
      }),
    );
  };
  /** @type {string[]} */
  const problems = [];
  const cancel = {
    response: /** @type {number[]} */ ([]),
    streamDone: /** @type {number[]} */ ([]),
    failed: 0,
  };
  await inTurn(samples, async (i) => {
    const r = await cancelRoundTrip(a.url, b.url, `${tag}-cancel-u${i}`, httpAgent);
    if (!r.ok || r.responseMs === undefined || r.streamDoneMs === undefined) {
      cancel.failed++;
      problems.push(r.problem);
      return;
    }
    cancel.response.push(r.responseMs);
    cancel.streamDone.push(r.streamDoneMs);
  });
  log(`${tag} cancel: p99 ${fmt(spread(cancel.response).p99, 0)} ms (${cancel.failed} failed)`);
  const approve = {
    jsonStatus: /** @type {number[]} */ ([]),
    sseStatus: /** @type {number[]} */ ([]),
    sseFirstEvent: /** @type {number[]} */ ([]),
    sseDone: /** @type {number[]} */ ([]),
    firstEvents: /** @type {Set<string>} */ (new Set()),
    failed: 0,
  };
  await inTurn(forms.length * samples, async (i) => {
    const form = /** @type {'json' | 'sse'} */ (forms[i % forms.length]);
    const r = await approveRoundTrip(a.url, b.url, `${tag}-approve-u${i}`, form, httpAgent);
    if (!r.ok || r.headersMs === undefined) {
      approve.failed++;
      problems.push(r.problem);
      return;
    }
    if (form === 'json') approve.jsonStatus.push(r.headersMs);
    else {
      approve.sseStatus.push(r.headersMs);
      approve.sseFirstEvent.push(r.firstEventMs ?? NaN);
      approve.sseDone.push(r.totalMs);
      approve.firstEvents.add(r.firstEvent ?? '');
    }
  });
  log(
    `${tag} approve: SSE status line p99 ${fmt(spread(approve.sseStatus).p99, 0)} ms (${approve.failed} failed)`,
  );
  httpAgent.destroy();
  return { cancel, approve, problems: [...new Set(problems)].slice(0, 5) };
}

// ---------------------------------------------------------------------------------------------
// 3. Many concurrent SSE streams.

/**
 * `n` SSE runs sent at once, split over the API instances.
 * @param {import('./cluster.js').Instance[]} apis @param {import('./cluster.js').Instance[]} workers @param {number} n
 */
async function manyStreams(apis, workers, n) {
  const httpAgent = keepAlive();
  // Warm-up: a few runs through each instance.
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      sseRun(/** @type {import('./cluster.js').Instance} */ (apis[i % apis.length]).url, {
        agent: 'bench',
        input: `warm ${i}`,
        user: `warm-${i}`,
        httpAgent,
      }),
    ),
  );
  const sampler = await sampleStats([...apis, ...workers], 250);
  let peakHeld = 0;
  const holdTimer = setInterval(() => {
    void Promise.all(workers.map((w) => w.stats())).then(
      (s) =>
        (peakHeld = Math.max(
          peakHeld,
          s.reduce((a, x) => a + x.holding, 0),
        )),
      () => undefined,
    );
  }, 100);
  const cpu = process.cpuUsage();
  const began = performance.now();
  let open = 0;
  let peakOpen = 0;
  const runs = await Promise.all(
    Array.from({ length: n }, (_, i) => {
      open++;
      peakOpen = Math.max(peakOpen, open);
      const api = /** @type {import('./cluster.js').Instance} */ (apis[i % apis.length]);
      return sseRun(api.url, {
        agent: 'bench',
        input: `stream ${i}`,
        user: `stream-u${i % 200}`,
        httpAgent,
      }).finally(() => open--);
    }),
  );
  const wallMs = performance.now() - began;
  const used = process.cpuUsage(cpu);
  clearInterval(holdTimer);
  const usage = await sampler.stop();
  httpAgent.destroy();
  const ok = runs.filter((r) => r.ok);
  /** @type {Map<string, number>} */
  const errors = new Map();
  for (const r of runs.filter((x) => !x.ok))
    errors.set(r.status.slice(0, 120), (errors.get(r.status.slice(0, 120)) ?? 0) + 1);
  return {
    streams: n,
    completed: ok.length,
    errors: [...errors.entries()].map(([status, count]) => `${count}× ${status}`),
    wallMs,
    peakOpen,
    peakHeld,
    eventAdded: spread(runs.flatMap((r) => r.addedMs)),
    durations: spread(ok.map((r) => r.durationMs)),
    headers: spread(ok.map((r) => r.headersMs)),
    queued: spread(ok.map((r) => r.queuedMs)),
    worker: spread(ok.map((r) => r.workerMs)),
    clientCpuPercent: ((used.user + used.system) / 1000 / wallMs) * 100,
    usage,
  };
}

// ---------------------------------------------------------------------------------------------

/** @type {Record<string, unknown>} */
const results = {};
const markdown = [];
/** @type {string[]} section 1's baseline table, printed after its shared-mode tables */
const baseline = [];
const began = performance.now();
try {
  if (sections.has(1)) {
    log('baseline: one process, no shared mode');
    const single = await start('single', 'single');
    await closedLoop([single], 10, WARM_MS, 'warm-single');
    const rows = [];
    for (const clients of clientLevels) {
      const sampler = await sampleStats([single]);
      const r = await closedLoop([single], clients, seconds * 1_000, `single-c${clients}`);
      const [usage] = await sampler.stop();
      rows.push({
        clients,
        runsPerS: r.runsPerS,
        runs: r.runs,
        failed: r.failed,
        duration: spread(r.durations),
        eventAdded: spread(r.eventAdded),
        runAdded: spread(r.runAdded),
        cpuMsPerRun: (usage?.cpuMs ?? NaN) / r.allRuns,
      });
    }
    await stop([single]);
    results['baseline'] = rows;
    baseline.push(
      `Baseline — the same agent and store in one process, no shared mode (in-process limits), 1 round per level:\n`,
      table(
        [
          'C',
          'runs/s',
          'run duration p50 / p99 (ms)',
          'added per event p50 / p99 (ms)',
          'added per run p50 / p99 (ms)',
          'CPU ms per run',
          'runs (failed)',
        ],
        rows.map((r) => [
          String(r.clients),
          fmt(r.runsPerS, 1),
          `${int(r.duration.p50)} / ${int(r.duration.p99)}`,
          `${int(r.eventAdded.p50)} / ${int(r.eventAdded.p99)}`,
          `${int(r.runAdded.p50)} / ${int(r.runAdded.p99)}`,
          fmt(r.cpuMsPerRun, 1),
          `${int(r.runs)} (${int(r.failed)})`,
        ]),
      ),
      '',
    );
  }
  if (sections.has(1) || sections.has(2)) {
    log('starting API A, API B and worker 1');
    const [a, b, w1] = await Promise.all([
      start('api-A', 'api'),
      start('api-B', 'api'),
      start('worker-1', 'worker', { CONCURRENCY: workerConcurrency }),
    ]);
    /** @type {Level[]} */
    const levels = [];
    if (sections.has(1)) levels.push(...(await throughputLevels([a, b], [w1])));
    log('starting worker 2');
    const w2 = await start('worker-2', 'worker', { CONCURRENCY: workerConcurrency });
    if (sections.has(1)) levels.push(...(await throughputLevels([a, b], [w1, w2])));
    if (sections.has(1)) {
      results['throughput'] = levels.map((l) => ({
        workers: l.workers,
        clients: l.clients,
        rounds: l.rounds,
        runsPerS: l.runsPerS,
        runs: l.runs,
        failed: l.failed,
        failures: [...new Set(l.failures)],
        duration: spread(l.durations),
        queued: spread(l.queued),
        eventAdded: spread(l.eventAdded),
        runAdded: spread(l.runAdded),
        cpuPercent: Object.fromEntries(Object.entries(l.cpu).map(([k, v]) => [k, median(v)])),
        apiCpuMsPerRun: median(l.apiCpuPerRun),
        workerCpuMsPerRun: median(l.workerCpuPerRun),
        storeStatementsPerRun: median(l.storePerRun),
        storeStatementMs: median(l.storeMs),
        machineBusyPercent: median(l.machineBusy),
      }));
      const pick = (/** @type {number} */ w, /** @type {number} */ c) =>
        /** @type {Level} */ (levels.find((l) => l.workers === w && l.clients === c));
      const both = (/** @type {number} */ c, /** @type {(l: Level) => string} */ f) =>
        `${f(pick(1, c))} │ ${f(pick(2, c))}`;
      markdown.push(
        `## 1. Throughput and added latency: 1 vs 2 workers\n`,
        `API instances A and B; workers of concurrency ${workerConcurrency}; C closed-loop SSE clients split over A and B; ` +
          `${seconds} s × ${repeats} round(s) per level (first ${RAMP_MS / 1000} s ramp-up); model ${BENCH_STEPS} × ${stepMs} ms = ` +
          `${BENCH_STEPS * stepMs} ms simulated per run, 7 events. Cells: 1 worker │ 2 workers. runs/s: median of the rounds.\n`,
        table(
          [
            'C',
            'runs/s',
            'speed-up',
            'run duration p50 / p99 (ms)',
            'sent → worker’s `start` p50 / p99 (ms)',
            'added per event p50 / p99 (ms)',
            'added per run p50 / p99 (ms)',
            'runs (failed)',
          ],
          clientLevels.map((c) => [
            String(c),
            both(c, (l) => fmt(median(l.runsPerS), 1)),
            `${fmt(median(pick(2, c).runsPerS) / median(pick(1, c).runsPerS))}×`,
            both(c, (l) => `${int(spread(l.durations).p50)} / ${int(spread(l.durations).p99)}`),
            both(c, (l) => `${int(spread(l.queued).p50)} / ${int(spread(l.queued).p99)}`),
            both(c, (l) => `${int(spread(l.eventAdded).p50)} / ${int(spread(l.eventAdded).p99)}`),
            both(c, (l) => `${int(spread(l.runAdded).p50)} / ${int(spread(l.runAdded).p99)}`),
            both(c, (l) => `${int(l.runs)} (${int(l.failed)})`),
          ]),
        ),
        '',
        `CPU % of each instance (mean over the level, median of the rounds; 100 = one core), CPU time per run by role, and the run store's statements (all instances; their time includes waiting for a pooled connection):\n`,
        table(
          [
            'workers',
            'C',
            'api-A',
            'api-B',
            'worker-1',
            'worker-2',
            'CPU ms per run: APIs │ workers',
            'store statements per run',
            'mean statement (ms)',
            'machine CPU % busy',
          ],
          levels.map((l) => [
            String(l.workers),
            String(l.clients),
            ...['api-A', 'api-B', 'worker-1', 'worker-2'].map((name) =>
              l.cpu[name] === undefined ? '–' : fmt(median(l.cpu[name] ?? []), 0),
            ),
            `${fmt(median(l.apiCpuPerRun), 1)} │ ${fmt(median(l.workerCpuPerRun), 1)}`,
            fmt(median(l.storePerRun), 1),
            fmt(median(l.storeMs), 1),
            fmt(median(l.machineBusy), 0),
          ]),
        ),
        '',
      );
      markdown.push(...baseline);
      const failures = levels.flatMap((l) => l.failures);
      if (failures.length > 0) markdown.push(`Failures seen: ${[...new Set(failures)].join('; ')}\n`);
    }
    if (sections.has(2)) {
      log('control round trips, idle');
      const idle = await controlRoundTrips(a, b, { tag: 'idle', forms: ['json', 'sse'], parallel: 1 });
      log(`control round trips under load: ${controlLoad} closed-loop clients in the background`);
      const background = new globalThis.AbortController();
      const loading = closedLoop([a, b], controlLoad, 3_600_000, 'background', background.signal);
      await sleep(2_000); // the load is on
      const busy = await controlRoundTrips(a, b, { tag: 'load', forms: ['sse'], parallel: 4 });
      background.abort();
      const load = await loading;
      const summary = (/** @type {typeof idle} */ c) => ({
        cancelResponse: spread(c.cancel.response),
        cancelStreamDone: spread(c.cancel.streamDone),
        approveJsonStatus: spread(c.approve.jsonStatus),
        approveSseStatus: spread(c.approve.sseStatus),
        approveSseFirstEvent: spread(c.approve.sseFirstEvent),
        approveSseDone: spread(c.approve.sseDone),
        failed: { cancel: c.cancel.failed, approve: c.approve.failed },
        problems: c.problems,
      });
      results['control'] = {
        idle: summary(idle),
        underLoad: {
          ...summary(busy),
          backgroundClients: controlLoad,
          backgroundRunsPerS: load.runsPerS,
          backgroundQueued: spread(load.queued),
        },
      };
      const cells = (/** @type {number[]} */ xs) => {
        const s = spread(xs);
        return s.n === 0 ? '–' : `${fmt(s.p50, 0)} / ${fmt(s.p95, 0)} / ${fmt(s.p99, 0)} / ${fmt(s.max, 0)}`;
      };
      const verdict = (/** @type {number[]} */ xs) =>
        xs.length === 0 ? '–' : spread(xs).p99 < TARGET_CONTROL_P99_MS ? 'yes' : '**no**';
      /** @type {[string, (c: typeof idle) => number[]][]} */
      const rows = [
        ['cancel on B → its response (run ended `cancelled`)', (c) => c.cancel.response],
        ['cancel on B → `done {cancelled}` on A’s stream', (c) => c.cancel.streamDone],
        [
          'approve on B, SSE form → status line (a worker took the approval and stored it)',
          (c) => c.approve.sseStatus,
        ],
        [
          `approve on B, SSE form → first event after the pause (${[...idle.approve.firstEvents].join(', ')})`,
          (c) => c.approve.sseFirstEvent,
        ],
        ['approve on B, SSE form → `done {success}`', (c) => c.approve.sseDone],
        [
          'approve on B, JSON form → status line (comes with the run’s next stop: tool + a 0 ms model step)',
          (c) => c.approve.jsonStatus,
        ],
      ];
      markdown.push(
        `## 2. Control round trips: run streamed from A, control sent to B (2 workers of ${workerConcurrency})\n`,
        `Idle: one at a time, nothing else running. Under load: ${controlLoad} closed-loop SSE clients in the background ` +
          `(${fmt(load.runsPerS, 1)} runs/s; more runs than the workers' ${2 * workerConcurrency} slots, so new runs wait in the queue: ` +
          `sent → worker's \`start\` p50 ${int(spread(load.queued).p50)} ms, p99 ${int(spread(load.queued).p99)} ms), ` +
          `4 round trips at a time, SSE form only. Cells: p50 / p95 / p99 / max in ms (samples).\n`,
        table(
          ['round trip', 'idle', 'under load', `p99 < ${TARGET_CONTROL_P99_MS} ms: idle │ load`],
          rows.map(([label, of]) => [
            label,
            `${cells(of(idle))} (${of(idle).length})`,
            of(busy).length === 0 ? '–' : `${cells(of(busy))} (${of(busy).length})`,
            `${verdict(of(idle))} │ ${verdict(of(busy))}`,
          ]),
        ),
        '',
        `Failed samples: idle cancel ${idle.cancel.failed}, approve ${idle.approve.failed}; under load cancel ${busy.cancel.failed}, approve ${busy.approve.failed}` +
          `${[...idle.problems, ...busy.problems].length > 0 ? ` (${[...new Set([...idle.problems, ...busy.problems])].join('; ')})` : ''}\n`,
      );
    }
    await stop([a, b, w1, w2]);
  }

  if (sections.has(3)) {
    log(
      `starting fresh A, B and 2 workers of concurrency ${streamsWorkerConcurrency} for ${streams} streams`,
    );
    const extra = { CONCURRENCY: streamsWorkerConcurrency, STEP_MS: streamsStepMs };
    const [a, b, w1, w2] = await Promise.all([
      start('streams-api-A', 'api'),
      start('streams-api-B', 'api'),
      start('streams-worker-1', 'worker', extra),
      start('streams-worker-2', 'worker', extra),
    ]);
    const s = await manyStreams([a, b], [w1, w2], streams);
    log(`${streams} streams: ${s.completed} completed, event added p99 ${fmt(s.eventAdded.p99, 0)} ms`);
    results['streams'] = s;
    markdown.push(
      `## 3. ${int(streams)} concurrent SSE streams over two API instances\n`,
      `All ${int(streams)} runs sent at once (${int(Math.ceil(streams / 2))} to A, ${int(Math.floor(streams / 2))} to B); 2 workers of concurrency ${streamsWorkerConcurrency}; ` +
        `model ${BENCH_STEPS} × ${streamsStepMs} ms; load generator: this process (${fmt(s.clientCpuPercent, 0)}% CPU over the wave).\n`,
      table(
        [
          'streams',
          'completed',
          'errors',
          'wave (s)',
          'peak open streams',
          'peak runs held',
          'added per event p50 / p99 / max (ms)',
          'run duration p50 / p99 (ms)',
        ],
        [
          [
            int(s.streams),
            int(s.completed),
            s.errors.length === 0 ? '0' : s.errors.join('; '),
            fmt(s.wallMs / 1000, 1),
            int(s.peakOpen),
            int(s.peakHeld),
            `${int(s.eventAdded.p50)} / ${int(s.eventAdded.p99)} / ${int(s.eventAdded.max)}`,
            `${int(s.durations.p50)} / ${int(s.durations.p99)}`,
          ],
        ],
      ),
      '',
      `Where a run's time went (completed runs; ms):\n`,
      table(
        ['stretch', 'p50', 'p99', 'max'],
        /** @type {[string, { p50: number, p99: number, max: number }][]} */ ([
          ['sent → response headers (the API stored the run and queued it)', s.headers],
          ['sent → the worker’s `start` (+ waiting in the queue, taken, rebuilt)', s.queued],
          [
            `worker’s \`start\` → its \`done\` (2 model steps of ${streamsStepMs} ms + tool + storing)`,
            s.worker,
          ],
          ['sent → `done` received here (run duration)', s.durations],
          ['added per event (arrival here − its `at`)', s.eventAdded],
        ]).map(([label, x]) => [label, int(x.p50), int(x.p99), int(x.max)]),
      ),
      '',
      table(
        [
          'instance',
          'RSS before → peak (MB)',
          'CPU % (mean over the wave)',
          'event-loop delay p99 / max (ms)',
        ],
        s.usage.map((u) => [
          u.name,
          `${fmt(u.rssStartMB, 0)} → ${fmt(u.rssPeakMB, 0)}`,
          fmt(u.cpuPercent, 0),
          `${fmt(u.loopDelayP99Ms, 0)} / ${fmt(u.loopDelayMaxMs, 0)}`,
        ]),
      ),
      '',
      `The machine's CPU over the wave (both cores; PostgreSQL, Redis and this client included): ${fmt(s.usage[0]?.machineBusyPercent ?? NaN, 0)}% busy.\n`,
    );
    await stop([a, b, w1, w2]);
  }

  if (sections.has(4)) {
    log('fan-out: Redis pub/sub vs PostgreSQL LISTEN/NOTIFY');
    const fan = await fanoutReport({ events: fanoutEvents, rate: 1_000, repeats: fanoutRepeats });
    results['fanout'] = { results: fan.results, caps: fan.caps };
    markdown.push(`## 4. Fan-out: Redis pub/sub vs PostgreSQL LISTEN/NOTIFY\n`, fan.markdown, '');
  }
} finally {
  await Promise.all(live.map((i) => i.stop()));
  results['stored'] = await storage.counts().catch(() => undefined);
  await storage.dispose();
}

const stderrLines = Object.fromEntries(spawned.map((i) => [i.name, i.stderrLines]));
let commit = 'unknown';
try {
  commit = execSync('git rev-parse --short HEAD', { cwd: here }).toString().trim();
} catch {
  // not a checkout
}
const meta = {
  node: process.version,
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  load: os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
  commit,
  quick,
  totalS: (performance.now() - began) / 1000,
};
console.log(`\n# Reins shared mode, scaled out (bench/scale-out)\n`);
console.log(
  `node ${meta.node}, ${meta.cpus} CPUs (${meta.cpu}), load ${meta.load} at the end, commit ${commit}${quick ? ', --quick' : ''}; ` +
    `PostgreSQL, Redis, every instance and the load generator on this machine; ${fmt(meta.totalS, 0)} s in all\n`,
);
console.log(markdown.join('\n'));
console.log(
  `Lines the instances wrote to stderr (warnings, errors): ${Object.entries(stderrLines)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ')} — in ${logDir}`,
);

const out = join(here, '..', 'results');
mkdirSync(out, { recursive: true });
const json = JSON.stringify({ meta, stderrLines, results }, null, 2);
writeFileSync(join(out, `scale-out-${stamp}.json`), json);
writeFileSync(join(out, 'scale-out-latest.json'), json);
