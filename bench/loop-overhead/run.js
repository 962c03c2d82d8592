// @ts-check
/**
 * Loop-overhead benchmark: what reins costs per step over a hand-written loop, its throughput
 * with 100 runs in flight, its memory per run in flight, and its import time. Imports the
 * BUILT package (`npm run build` first; `npm run bench` does both).
 *
 *   node bench/loop-overhead/run.js [--quick] [--out <file.json>]
 *
 * Prints markdown tables and writes bench/results/loop-overhead-<timestamp>.json (and
 * loop-overhead-latest.json). Memory is measured in a `node --expose-gc` child (memory.js);
 * import time in fresh `node` children.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { scriptModel } from 'reins';
import {
  QUERY,
  TOOLS,
  expectedAnswer,
  handLoop,
  reinsEvents,
  reinsResult,
  scriptFor,
  startReins,
} from './workload.js';
import { fmt, int, percentile, summarize, table, gitState } from './report.js';
import { importTime, memory } from './children.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const outArg = args.indexOf('--out');
const outFile = outArg >= 0 ? args[outArg + 1] : undefined;

/** Targets (see bench/README.md). */
const TARGET_RATIO = 3;
const TARGET_BYTES_PER_RUN = 8 * 1024;
/** Issue 17 item 6: with 100 runs in flight, at least this many runs/s and this share of the hand loop's. */
const TARGET_RUNS_PER_SEC = 10_000;
const TARGET_THROUGHPUT_RATIO = 0.35;
/** Issue 17 item 4: `import('reins')` over Node's own start. */
const TARGET_IMPORT_MS = 150;

const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);

// ---------------------------------------------------------------------------------------
// Workload variants: `prepare` builds the model outside the timed region; `run` is timed.

/**
 * @typedef {import('./workload.js').Outcome} Outcome
 * @typedef {{ name: string, prepare(k: number): unknown, run(k: number, prepared: unknown): Promise<Outcome> }} Variant
 */

/** @type {Variant} */
const REINS_RESULT = {
  name: 'reins — await run.result',
  prepare: (k) => scriptModel(scriptFor(k)),
  run: (k, model) => reinsResult(startReins(k, /** @type {import('reins').Model} */ (model))),
};
/** @type {Variant} */
const REINS_EVENTS = {
  name: 'reins — for await (events)',
  prepare: (k) => scriptModel(scriptFor(k)),
  run: (k, model) => reinsEvents(startReins(k, /** @type {import('reins').Model} */ (model))),
};
/** @type {Variant} */
const HAND = {
  name: 'hand-written loop',
  prepare: (k) => scriptModel(scriptFor(k)),
  run: (k, model) => handLoop(/** @type {import('reins').Model} */ (model), TOOLS, QUERY, k),
};

/** @param {Outcome} outcome @param {number} k @param {string} name */
function check(outcome, k, name) {
  if (outcome.answer !== expectedAnswer(k) || outcome.toolCalls !== k - 1 || outcome.steps !== k) {
    throw new Error(`${name} K=${k}: unexpected outcome ${JSON.stringify(outcome)}`);
  }
}

// ---------------------------------------------------------------------------------------
// 1–2. µs per step, reins vs the hand loop, interleaved in blocks so drift hits all alike.

/**
 * @param {number} k
 * @param {Variant[]} variants
 * @param {{ warmup: number, rounds: number, block: number }} plan
 */
async function perStep(k, variants, plan) {
  /** @type {number[][]} */
  const samples = variants.map(() => []);
  for (const variant of variants) {
    for (let i = 0; i < plan.warmup; i++) check(await variant.run(k, variant.prepare(k)), k, variant.name);
  }
  for (let round = 0; round < plan.rounds; round++) {
    for (let v = 0; v < variants.length; v++) {
      const index = (v + round) % variants.length; // rotate who goes first
      const variant = /** @type {Variant} */ (variants[index]);
      const out = /** @type {number[]} */ (samples[index]);
      const models = Array.from({ length: plan.block }, () => variant.prepare(k));
      for (const model of models) {
        const t0 = performance.now();
        const outcome = await variant.run(k, model);
        const t1 = performance.now();
        out.push(((t1 - t0) * 1000) / k);
        check(outcome, k, variant.name);
      }
    }
  }
  return variants.map((variant, i) => ({ variant: variant.name, k, ...summarize(samples[i] ?? []) }));
}

// ---------------------------------------------------------------------------------------
// 3. Runs/s with 100 runs in flight.

/**
 * @param {number} k
 * @param {number} concurrency
 * @param {Variant[]} variants
 * @param {{ warmup: number, batches: number }} plan
 */
async function throughput(k, concurrency, variants, plan) {
  /** @param {Variant} variant */
  const batch = async (variant) => {
    const models = Array.from({ length: concurrency }, () => variant.prepare(k));
    const t0 = performance.now();
    const outcomes = await Promise.all(models.map((model) => variant.run(k, model)));
    const seconds = (performance.now() - t0) / 1000;
    for (const outcome of outcomes) check(outcome, k, variant.name);
    return seconds;
  };
  for (const variant of variants) for (let i = 0; i < plan.warmup; i++) await batch(variant);
  /** @type {number[][]} */
  const rates = variants.map(() => []);
  for (let b = 0; b < plan.batches; b++) {
    for (let v = 0; v < variants.length; v++) {
      const index = (v + b) % variants.length;
      const seconds = await batch(/** @type {Variant} */ (variants[index]));
      rates[index]?.push(concurrency / seconds);
    }
  }
  return variants.map((variant, i) => {
    const s = summarize(rates[i] ?? []);
    return {
      variant: variant.name,
      k,
      concurrency,
      batches: s.n,
      runsPerSecMedian: s.median,
      runsPerSecP5: percentile(
        [...(rates[i] ?? [])].sort((a, b) => a - b),
        5,
      ),
    };
  });
}

// ---------------------------------------------------------------------------------------

async function main() {
  const reinsPkg = JSON.parse(readFileSync(join(repo, 'packages/reins/package.json'), 'utf8'));
  const env = {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length,
    loadavgAtStart: os.loadavg(),
    reins: reinsPkg.version,
    reinsEntry: relative(repo, fileURLToPath(import.meta.resolve('reins'))),
    ...gitState(repo),
    quick: QUICK,
  };
  console.log(`# reins loop overhead — ${new Date().toISOString()}\n`);
  console.log(
    `node ${env.node} · ${env.cpu} × ${env.cpus} · reins ${env.reins} (${env.reinsEntry})` +
      ` · commit ${env.commit ?? '?'}${env.dirty ? ' + uncommitted src changes' : ''}` +
      ` · load ${env.loadavgAtStart.map((l) => l.toFixed(2)).join(' ')}${QUICK ? ' · QUICK' : ''}\n`,
  );

  const scale = QUICK ? 0.1 : 1;
  const n = (/** @type {number} */ x) => Math.max(1, Math.round(x * scale));
  const variants = [REINS_RESULT, REINS_EVENTS, HAND];

  // 1–2. per step
  const steps = [
    ...(await perStep(3, variants, { warmup: n(2000), rounds: n(60), block: 100 })),
    ...(await perStep(20, variants, { warmup: n(300), rounds: n(60), block: 20 })),
  ];
  gc?.();
  /** @param {number} k */
  const handMedian = (k) => steps.find((s) => s.k === k && s.variant === HAND.name)?.median ?? NaN;
  const stepRows = steps.map((s) => [
    s.variant,
    s.k,
    int(s.n),
    fmt(s.median),
    fmt(s.p95),
    fmt(s.median * s.k, 1),
    s.variant === HAND.name ? '1.00×' : `${fmt(s.median / handMedian(s.k))}×`,
  ]);
  console.log('## µs per step (zero-latency script model, one `add` tool, K-1 tool calls + final)\n');
  console.log(
    table(
      ['variant', 'K', 'runs', 'median µs/step', 'p95 µs/step', 'median µs/run', 'vs hand (median)'],
      stepRows,
    ),
  );

  // 3. throughput
  const tput = await throughput(3, 100, [REINS_RESULT, REINS_EVENTS, HAND], {
    warmup: n(20),
    batches: n(150),
  });
  gc?.();
  console.log('\n## Throughput: 100 concurrent runs, K=3\n');
  const handRate = tput.find((t) => t.variant === HAND.name)?.runsPerSecMedian ?? NaN;
  console.log(
    table(
      ['variant', 'batches', 'runs/s (median batch)', 'runs/s (p5 batch)', 'vs hand'],
      tput.map((t) => [
        t.variant,
        t.batches,
        int(t.runsPerSecMedian),
        int(t.runsPerSecP5),
        `${fmt(t.runsPerSecMedian / handRate)}×`,
      ]),
    ),
  );

  // 4. memory
  const mem = memory(QUICK ? 300 : 1000, QUICK ? 2 : 5);
  console.log(
    `\n## Memory per run in flight: ${mem.runs} runs (K=3) blocked on model call ${mem.blockAt}, after one tool step\n`,
  );
  console.log(
    table(
      ['variant', 'reps', 'median bytes/run', 'min bytes/run', 'left after finish, bytes/run'],
      /** @type {const} */ (['reins', 'hand']).map((name) => [
        name === 'reins' ? 'reins' : 'hand-written loop',
        mem.reps,
        int(mem[name].inFlightBytesPerRun.median),
        int(mem[name].inFlightBytesPerRun.min),
        int(mem[name].retainedBytesPerRunAfterFinish.median),
      ]),
    ),
  );
  console.log(
    `\n## Memory per run in flight after three tool steps: ${mem.runs} runs (K=${mem.afterThree.k}) blocked on model call ${mem.afterThree.blockAt}\n`,
  );
  console.log(
    table(
      ['variant', 'reps', 'median bytes/run', 'min bytes/run'],
      /** @type {const} */ (['reins', 'hand']).map((name) => [
        name === 'reins' ? 'reins' : 'hand-written loop',
        mem.reps,
        int(mem.afterThree[name].median),
        int(mem.afterThree[name].min),
      ]),
    ),
  );

  // 5. import time
  const imp = importTime(QUICK ? 5 : 15);
  console.log(`\n## Import time (${imp.times} fresh processes each, median)\n`);
  console.log(
    table(
      ['measure', 'median ms', 'p95 ms'],
      [
        ["node --input-type=module -e ''", fmt(imp.baselineMs.median, 1), fmt(imp.baselineMs.p95, 1)],
        [
          'node --input-type=module -e "await import(\'reins\')"',
          fmt(imp.withImportMs.median, 1),
          fmt(imp.withImportMs.p95, 1),
        ],
        ['import cost (difference of medians)', fmt(imp.importCostMs, 1), ''],
        [
          "in-process: performance.now() around import('reins')",
          fmt(imp.inProcessImportMs.median, 1),
          fmt(imp.inProcessImportMs.p95, 1),
        ],
      ],
    ),
  );

  // Summary
  /** @param {string} variant @param {number} k */
  const stepOf = (variant, k) =>
    /** @type {(typeof steps)[number]} */ (steps.find((s) => s.variant === variant && s.k === k));
  const verdict = (/** @type {boolean} */ ok) => (ok ? 'PASS' : 'FAIL');
  /** @type {(string | number)[][]} */
  const summary = [];
  for (const k of [3, 20]) {
    const r = stepOf(REINS_RESULT.name, k);
    const e = stepOf(REINS_EVENTS.name, k);
    const h = stepOf(HAND.name, k);
    summary.push([
      `K=${k} µs/step: reins (result) / hand`,
      `${fmt(r.median)} / ${fmt(h.median)}`,
      `${fmt(r.p95)} / ${fmt(h.p95)}`,
      `${fmt(r.median / h.median)}×`,
      `≤ ${TARGET_RATIO}×`,
      verdict(r.median / h.median <= TARGET_RATIO),
    ]);
    summary.push([
      `K=${k} µs/step: reins (events) / hand`,
      `${fmt(e.median)} / ${fmt(h.median)}`,
      `${fmt(e.p95)} / ${fmt(h.p95)}`,
      `${fmt(e.median / h.median)}×`,
      `≤ ${TARGET_RATIO}×`,
      verdict(e.median / h.median <= TARGET_RATIO),
    ]);
  }
  const reinsRate = tput.find((t) => t.variant === REINS_RESULT.name)?.runsPerSecMedian ?? NaN;
  summary.push([
    'runs/s, 100 in flight, K=3: reins (result) / hand',
    `${int(reinsRate)} / ${int(handRate)}`,
    '',
    `${fmt(reinsRate / handRate)}×`,
    `≥ ${int(TARGET_RUNS_PER_SEC)} and ≥ ${TARGET_THROUGHPUT_RATIO}×`,
    verdict(reinsRate >= TARGET_RUNS_PER_SEC && reinsRate / handRate >= TARGET_THROUGHPUT_RATIO),
  ]);
  const bytes = mem.reins.inFlightBytesPerRun.median;
  summary.push([
    'bytes per run in flight: reins / hand',
    `${int(bytes)} / ${int(mem.hand.inFlightBytesPerRun.median)}`,
    '',
    '',
    `< ${int(TARGET_BYTES_PER_RUN)}`,
    verdict(bytes < TARGET_BYTES_PER_RUN),
  ]);
  const bytes3 = mem.afterThree.reins.median;
  summary.push([
    'bytes per run in flight after three tool steps: reins / hand',
    `${int(bytes3)} / ${int(mem.afterThree.hand.median)}`,
    '',
    '',
    `≤ ${int(TARGET_BYTES_PER_RUN)}`,
    verdict(bytes3 <= TARGET_BYTES_PER_RUN),
  ]);
  summary.push([
    "import('reins') ms",
    fmt(imp.importCostMs, 1),
    '',
    '',
    `≤ ${TARGET_IMPORT_MS}`,
    verdict(imp.importCostMs <= TARGET_IMPORT_MS),
  ]);
  console.log('\n## Summary\n');
  console.log(table(['metric', 'median', 'p95', 'ratio', 'target', 'result'], summary));

  const result = {
    benchmark: 'loop-overhead',
    at: new Date().toISOString(),
    env: { ...env, loadavgAtEnd: os.loadavg() },
    targets: {
      ratioToHandLoop: TARGET_RATIO,
      bytesPerRunInFlight: TARGET_BYTES_PER_RUN,
      runsPerSecAt100: TARGET_RUNS_PER_SEC,
      throughputRatioToHand: TARGET_THROUGHPUT_RATIO,
      importMs: TARGET_IMPORT_MS,
    },
    perStepMicros: steps,
    throughput: tput,
    memory: mem,
    importTime: imp,
    pass: {
      ratioK3: stepOf(REINS_RESULT.name, 3).median / handMedian(3) <= TARGET_RATIO,
      ratioK20: stepOf(REINS_RESULT.name, 20).median / handMedian(20) <= TARGET_RATIO,
      memory: bytes < TARGET_BYTES_PER_RUN,
      memoryAfterThreeSteps: bytes3 <= TARGET_BYTES_PER_RUN,
      throughput: reinsRate >= TARGET_RUNS_PER_SEC && reinsRate / handRate >= TARGET_THROUGHPUT_RATIO,
      importTime: imp.importCostMs <= TARGET_IMPORT_MS,
    },
  };
  const dir = join(repo, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = outFile ?? join(dir, `loop-overhead-${result.at.replace(/[:.]/g, '-')}.json`);
  const json = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(file, json);
  if (outFile === undefined) writeFileSync(join(dir, 'loop-overhead-latest.json'), json);
  console.log(`\nWrote ${relative(process.cwd(), file)}`);
}

await main();
