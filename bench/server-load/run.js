// @ts-check
/**
 * Server load benchmark: concurrent SSE runs against a Reins server in another process.
 *
 *   npm run bench:server                       # build, then the full run (~1.5 min)
 *   node bench/server-load/run.js --quick      # two short levels, a smoke check
 *   node bench/server-load/run.js --levels 50,200 --seconds 10
 *
 * At each level N this process keeps N SSE runs open (closed loop: when a run ends, the
 * next starts) for the level's duration. Each run is three model steps of 300–800 ms (script
 * model) with two tool calls: 10 events. For every event it records the added latency: the
 * time it arrived here minus the event's own `at` timestamp (same machine, same wall clock).
 * The server reports its RSS and CPU (`/bench/stats`). Prints markdown tables; writes
 * bench/results/server-load-<timestamp>.json and server-load-latest.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { clearInterval, setInterval, setTimeout } from 'node:timers';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, int, percentile, table } from '../loop-overhead/report.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const option = (/** @type {string} */ name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const levels = (option('--levels') ?? (quick ? '25,100' : '50,100,200,400,800,1000')).split(',').map(Number);
const seconds = Number(option('--seconds') ?? (quick ? 4 : 12));
const TARGET_P99_MS = 50;

// --cpu-prof: the server writes a V8 CPU profile (whole run) to bench/results/profiles/ when it exits.
const profile = args.includes('--cpu-prof')
  ? ['--cpu-prof', '--cpu-prof-dir', join(here, '..', 'results', 'profiles')]
  : [];
const child = spawn(process.execPath, ['--expose-gc', ...profile, join(here, 'server.js')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((resolve, reject) => {
  child.once('error', reject);
  child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
});
const base = `http://127.0.0.1:${port}`;
process.on('exit', () => child.kill('SIGKILL')); // never leave a server behind (a crash included)
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** @returns {Promise<{ rss: number, heapUsed: number, cpuPercent: number, cpuUs: number }>} */
async function stats() {
  const response = await globalThis.fetch(`${base}/bench/stats`);
  return /** @type {{ rss: number, heapUsed: number, cpuPercent: number, cpuUs: number }} */ (
    await response.json()
  );
}

let runSeq = 0;
/**
 * One SSE run; resolves with its events' added latencies when `done` arrives.
 * @returns {Promise<{ latencies: number[], events: number, ok: boolean, ms?: number, startMs?: number }>}
 */
function oneRun() {
  return new Promise((resolve) => {
    const body = JSON.stringify({ agent: 'bench', input: `run ${runSeq++}` });
    const req = request(`${base}/v1/runs`, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-user': `u${runSeq % 50}`,
      },
    });
    /** @type {number[]} */
    const latencies = [];
    let events = 0;
    let buffer = '';
    let ok = false;
    const began = Date.now();
    let startMs = NaN;
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        // Refused (a limit): no events; drained so the socket is reused.
        res.resume();
        res.on('end', () => resolve({ latencies, events, ok: false }));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (/** @type {string} */ chunk) => {
        const now = Date.now();
        buffer += chunk;
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (data === undefined) continue;
          const event = JSON.parse(data.slice(6));
          events++;
          latencies.push(now - event.at);
          if (event.type === 'start') startMs = event.at - began;
          if (event.type === 'done') ok = event.status === 'success';
        }
      });
      res.on('end', () => resolve({ latencies, events, ok, ms: Date.now() - began, startMs }));
    });
    req.on('error', () => resolve({ latencies, events, ok: false }));
    req.end(body);
  });
}

/** Keeps `n` runs open for `ms`, then lets the last ones finish. */
async function level(/** @type {number} */ n, /** @type {number} */ ms) {
  await globalThis.fetch(`${base}/bench/gc`, { method: 'POST' });
  await new Promise((r) => setTimeout(r, 300));
  const before = await stats();
  /** @type {number[]} */
  const latencies = [];
  let events = 0;
  let runs = 0;
  let failed = 0;
  /** @type {number[]} */
  const runMs = [];
  /** @type {number[]} */
  const startMs = []; // request sent → the run's `start` event (admission, routing, the run's creation)
  const stopAt = Date.now() + ms;
  /** @type {{ rss: number, cpuPercent: number }[]} */
  const samples = [];
  const sampler = setInterval(() => {
    // A swamped server can drop the sampler's connection: that sample is skipped.
    stats().then(
      (s) => samples.push(s),
      () => undefined,
    );
  }, 500);
  // This process's own delay: an event read late here counts as latency the server did not add.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  const began = Date.now();
  const worker = async () => {
    while (Date.now() < stopAt) {
      const r = await oneRun();
      runs++;
      if (!r.ok) failed++;
      // A refused run must not turn the closed loop into a busy loop of refusals.
      if (r.events === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      events += r.events;
      if (r.ok && r.ms !== undefined) runMs.push(r.ms);
      if (r.startMs !== undefined) startMs.push(r.startMs);
      for (const l of r.latencies) latencies.push(l);
    }
  };
  // Stagger the starts over one run's length so the streams do not move in lockstep.
  await Promise.all(
    Array.from({ length: n }, (_, i) => new Promise((r) => setTimeout(r, (i / n) * 1_500)).then(worker)),
  );
  clearInterval(sampler);
  loop.disable();
  const after = await stats();
  const wallS = (Date.now() - began) / 1000;
  const clientCpu = process.cpuUsage(cpuBefore);
  const loopMs = (/** @type {number} */ ns) => Math.max(0, ns / 1e6 - 10); // the resolution subtracted
  const steady = samples.slice(Math.floor(samples.length / 3)); // after the ramp-up
  const sorted = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b);
  const rss = percentile(sorted(steady.map((s) => s.rss)), 50);
  const cpu = percentile(sorted(steady.map((s) => s.cpuPercent)), 50);
  latencies.sort((a, b) => a - b);
  runMs.sort((a, b) => a - b);
  startMs.sort((a, b) => a - b);
  const eventsPerS = events / wallS;
  return {
    streams: n,
    runs,
    failed,
    events,
    eventsPerS,
    runP50Ms: percentile(runMs, 50),
    startP50Ms: percentile(startMs, 50),
    startP99Ms: percentile(startMs, 99),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1) ?? 0,
    rssBaseMB: before.rss / 2 ** 20,
    rssMB: rss / 2 ** 20,
    rssPerStreamKB: (rss - before.rss) / n / 1024,
    serverCpuPercent: cpu,
    // CPU time the server spent per event streamed (run starts, steps, SSE writes, all of it):
    // what bounds the streams one core can hold, and less noisy than latency on a busy machine.
    serverCpuUsPerEvent: (after.cpuUs - before.cpuUs) / events,
    clientCpuPercent: ((clientCpu.user + clientCpu.system) / 1e6 / wallS) * 100,
    clientLoopP50Ms: loopMs(loop.percentile(50)),
    clientLoopP99Ms: loopMs(loop.percentile(99)),
    clientLoopMaxMs: loopMs(loop.max),
  };
}

const results = [];
try {
  await level(20, 2_000); // warm-up
  for (const n of levels) {
    const r = await level(n, seconds * 1000);
    results.push(r);
    console.error(`level ${n}: p99 ${fmt(r.p99Ms)} ms, ${int(r.eventsPerS)} events/s`);
  }
} finally {
  child.kill('SIGTERM');
  agent.destroy();
}

const passing = results.filter((r) => r.p99Ms < TARGET_P99_MS && r.failed === 0);
const maxStreams = passing.length === 0 ? 0 : Math.max(...passing.map((r) => r.streams));
const meta = {
  node: process.version,
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  load: os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
  seconds,
  stepDelayMs: '300–800',
};
console.log(`\n## Reins server under concurrent SSE runs\n`);
console.log(
  `node ${meta.node}, ${meta.cpus} CPUs (${meta.cpu}), load ${meta.load}; ${seconds} s per level; model steps ${meta.stepDelayMs} ms, 3 steps / 10 events per run\n`,
);
console.log(
  table(
    [
      'open streams',
      'runs',
      'failed',
      'events/s',
      'added latency p50 / p99 / max (ms)',
      'server RSS (MB)',
      'RSS per stream (KB)',
      'server CPU %',
      'server CPU µs / event',
      'run p50 (ms)',
      'start delay p50 / p99 (ms)',
      'client CPU %',
      'client loop delay p50 / p99 / max (ms)',
    ],
    results.map((r) => [
      int(r.streams),
      int(r.runs),
      int(r.failed),
      int(r.eventsPerS),
      `${fmt(r.p50Ms)} / ${fmt(r.p99Ms)} / ${fmt(r.maxMs)}`,
      `${fmt(r.rssBaseMB)} → ${fmt(r.rssMB)}`,
      fmt(r.rssPerStreamKB),
      fmt(r.serverCpuPercent),
      int(r.serverCpuUsPerEvent),
      int(r.runP50Ms),
      `${fmt(r.startP50Ms)} / ${fmt(r.startP99Ms)}`,
      fmt(r.clientCpuPercent),
      `${fmt(r.clientLoopP50Ms)} / ${fmt(r.clientLoopP99Ms)} / ${fmt(r.clientLoopMaxMs)}`,
    ]),
  ),
);
console.log(
  `\n**Max concurrent streams with p99 added latency < ${TARGET_P99_MS} ms: ${maxStreams}** (of the levels tried)\n`,
);

const out = join(here, '..', 'results');
mkdirSync(out, { recursive: true });
const json = JSON.stringify({ meta, targetP99Ms: TARGET_P99_MS, maxStreams, results }, null, 2);
writeFileSync(join(out, `server-load-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), json);
writeFileSync(join(out, 'server-load-latest.json'), json);
