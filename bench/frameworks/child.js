// @ts-check
/**
 * One framework's measurements, in a process of its own (run.js spawns it with the Node 24
 * binary and `--import ./no-network.js`):
 *
 *   node child.js <adapter> timing '<{"ms":2500,"warmupMs":1000}>'   µs/step at K=3 and K=20, runs/s
 *   node --expose-gc child.js <adapter> memory '<{"runs":1000,"reps":3}>'
 *
 * Prints one JSON object on stdout. Every run is checked (answer, tool calls as the framework
 * reports them, and the tool's own execution count); the first failure exits 1 with
 * `{ "error": … }`.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { Gate, MEMORY_K, check, gating } from './scenario.js';

const [adapterName = '', measure = '', optionsJson = '{}'] = process.argv.slice(2);
/** @type {{ ms?: number, warmupMs?: number, runs?: number, reps?: number, maxMs?: number }} */
const options = JSON.parse(optionsJson);

/**
 * @typedef {{
 *   run(k: number, prepared?: unknown): Promise<import('./scenario.js').Outcome>,
 *   prepare?(k: number): unknown,
 *   executed(): number,
 * }} Adapter
 */
/** @type {Adapter} */
const adapter = await import(`./adapters/${adapterName}.js`);
const prepare = (/** @type {number} */ k) => adapter.prepare?.(k);

/** One checked run; the tool must have run exactly K-1 times during it. @param {number} k */
async function checkedRun(k) {
  const prepared = prepare(k);
  const before = adapter.executed();
  const t0 = performance.now();
  const outcome = await adapter.run(k, prepared);
  const ms = performance.now() - t0;
  check(outcome, k, adapterName);
  const ran = adapter.executed() - before;
  if (ran !== k - 1) throw new Error(`${adapterName} K=${k}: the tool ran ${ran} times, expected ${k - 1}`);
  return ms;
}

/** µs per step: warm up, then sequential runs for `ms` (at least 5). @param {number} k */
async function perStep(k) {
  const warmupMs = options.warmupMs ?? 1000;
  const ms = options.ms ?? 2500;
  for (let start = performance.now(), n = 0; n < 3 || performance.now() - start < warmupMs; n++)
    await checkedRun(k);
  /** @type {number[]} */
  const micros = [];
  for (let start = performance.now(); micros.length < 5 || performance.now() - start < ms;) {
    micros.push(((await checkedRun(k)) * 1000) / k);
  }
  return micros;
}

/** runs/s: batches of 100 concurrent K=3 runs for `ms` (at least 1 after one warm-up batch). */
async function throughput() {
  const k = 3;
  const concurrency = 100;
  const batch = async () => {
    const prepared = Array.from({ length: concurrency }, () => prepare(k));
    const before = adapter.executed();
    const t0 = performance.now();
    const outcomes = await Promise.all(prepared.map((p) => adapter.run(k, p)));
    const seconds = (performance.now() - t0) / 1000;
    for (const outcome of outcomes) check(outcome, k, adapterName);
    const ran = adapter.executed() - before;
    if (ran !== concurrency * (k - 1)) {
      throw new Error(`${adapterName}: a batch ran the tool ${ran} times, expected ${concurrency * (k - 1)}`);
    }
    return concurrency / seconds;
  };
  await batch();
  /** @type {number[]} */
  const rates = [];
  for (let start = performance.now(); rates.length < 1 || performance.now() - start < (options.ms ?? 2500);) {
    rates.push(await batch());
  }
  return rates;
}

const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
const heapUsed = () => {
  if (gc === undefined) throw new Error('the memory measurement needs --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * Heap per run in flight: `runs` K=4 runs, each blocked in its model's 4th call (after three
 * tool steps); (heapUsed with all blocked − before) ÷ runs. Then the gate opens, every run must
 * finish right, and the heap left afterwards is read too (≈ 0: nothing kept).
 * @param {number} runs
 */
async function memoryOnce(runs) {
  const gate = new Gate();
  const before = heapUsed();
  gating.gate = gate;
  const executedBefore = adapter.executed();
  /** @type {Promise<import('./scenario.js').Outcome>[]} */
  const pending = [];
  for (let i = 0; i < runs; i++) pending.push(adapter.run(MEMORY_K, prepare(MEMORY_K)));
  // Fails when the runs stop making progress (tool executions, arrivals at the gate) for 30 s.
  let progressAt = performance.now();
  for (let seen = 0; gate.waiting < runs; await tick()) {
    const progress = gate.waiting + adapter.executed();
    if (progress > seen) [seen, progressAt] = [progress, performance.now()];
    if (performance.now() - progressAt > 30_000) {
      throw new Error(`${adapterName}: only ${gate.waiting}/${runs} runs reached the gate`);
    }
  }
  const during = heapUsed();
  gating.gate = undefined;
  gate.open();
  const outcomes = await Promise.all(pending);
  for (const outcome of outcomes) check(outcome, MEMORY_K, adapterName);
  const ran = adapter.executed() - executedBefore;
  if (ran !== runs * (MEMORY_K - 1))
    throw new Error(`${adapterName}: the tool ran ${ran} times, expected ${runs * (MEMORY_K - 1)}`);
  pending.length = 0;
  outcomes.length = 0;
  await tick();
  const after = heapUsed();
  return { inFlight: (during - before) / runs, leftAfter: (after - before) / runs };
}

async function memory() {
  const runs = options.runs ?? 1000;
  const reps = options.reps ?? 3;
  for (let i = 0; i < 50; i++) await checkedRun(MEMORY_K);
  await memoryOnce(Math.min(100, runs));
  /** @type {number[]} */ const inFlight = [];
  /** @type {number[]} */ const leftAfter = [];
  // Up to `reps` measurements, but none started after `maxMs` (a slow framework gets one).
  const start = performance.now();
  for (let r = 0; r < reps && (r === 0 || performance.now() - start < (options.maxMs ?? 30_000)); r++) {
    const m = await memoryOnce(runs);
    inFlight.push(m.inFlight);
    leftAfter.push(m.leftAfter);
  }
  return {
    runs,
    reps: inFlight.length,
    k: MEMORY_K,
    inFlightBytesPerRun: inFlight,
    leftAfterBytesPerRun: leftAfter,
  };
}

/**
 * At most 20,000 samples back to the parent (the fast loops make a million): every n-th, in
 * the order taken, so the median and p95 stay what they were.
 * @param {number[]} values
 */
function thin(values) {
  const every = Math.ceil(values.length / 20_000);
  return every <= 1 ? values : values.filter((_, i) => i % every === 0);
}

try {
  /** @type {unknown} */
  let result;
  if (measure === 'timing') {
    result = { k3: thin(await perStep(3)), k20: thin(await perStep(20)), runsPerSec: await throughput() };
  } else if (measure === 'memory') {
    result = await memory();
  } else throw new Error(`unknown measure ${measure}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`,
  );
  process.exitCode = 1;
}
