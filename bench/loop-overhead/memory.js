// @ts-check
/**
 * Memory per run in flight. Run by run.js as a child: `node --expose-gc memory.js [runs] [reps]`.
 * Prints one JSON object on stdout.
 *
 * Starts `runs` K=3 runs whose model blocks on its 2nd call (after one tool step), waits until
 * every run is blocked, forces GC and reads heapUsed: (after − before) / runs is what one
 * run in flight holds. Then opens the gate, lets every run finish and checks the heap returns.
 * Then the same with K=5 runs blocked on their 4th call, after THREE tool steps (`afterThree`):
 * what a run in flight holds as its log and prompt grow.
 */
import { setImmediate as tick } from 'node:timers/promises';
import {
  Gate,
  GatedScriptModel,
  expectedAnswer,
  handLoop,
  reinsResult,
  runHand,
  runReins,
  scriptFor,
  startReins,
  QUERY,
  TOOLS,
} from './workload.js';

const K = 3;
const BLOCK_AT = 2;
/** The three-tool-step measurement: K=5 runs (4 tool calls + the answer) blocked on call 4. */
const K3 = 5;
const BLOCK_AT_3 = 4;

const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
if (gc === undefined) {
  console.error('memory.js needs --expose-gc');
  process.exit(2);
}

/** Full collection, twice (the second sweeps what the first's finalizers freed). */
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * @typedef {{ start(gate: Gate): Promise<import('./workload.js').Outcome> }} Variant
 * @type {Record<'reins' | 'hand', Variant>}
 */
/** @param {number} k @param {number} blockAt @returns {Record<'reins' | 'hand', Variant>} */
const variantsFor = (k, blockAt) => ({
  reins: { start: (gate) => reinsResult(startReins(k, new GatedScriptModel(scriptFor(k), blockAt, gate))) },
  hand: { start: (gate) => handLoop(new GatedScriptModel(scriptFor(k), blockAt, gate), TOOLS, QUERY, k) },
});
const VARIANTS = variantsFor(K, BLOCK_AT);
const VARIANTS_3 = variantsFor(K3, BLOCK_AT_3);

/**
 * @param {Variant} variant
 * @param {number} runs
 */
async function measureOnce(variant, runs, k = K) {
  const gate = new Gate();
  const before = heapUsed();
  /** @type {Promise<import('./workload.js').Outcome>[]} */
  const pending = [];
  for (let i = 0; i < runs; i++) pending.push(variant.start(gate));
  while (gate.waiting < runs) await tick();
  const during = heapUsed();
  gate.open();
  const outcomes = await Promise.all(pending);
  if (outcomes.some((o) => o.answer !== expectedAnswer(k) || o.toolCalls !== k - 1)) {
    throw new Error('a blocked run did not finish with the expected answer');
  }
  pending.length = 0; // drop every reference before the last reading
  outcomes.length = 0;
  await tick();
  const after = heapUsed();
  return { inFlightBytesPerRun: (during - before) / runs, retainedBytesPerRun: (after - before) / runs };
}

const runs = Number(process.argv[2] ?? 1000);
const reps = Number(process.argv[3] ?? 5);

// Warm up: JIT, inline caches and lazily built module state (tool specs, zod internals).
for (let i = 0; i < 2000; i++) {
  await runReins(K);
  await runHand(K);
}
await measureOnce(VARIANTS.reins, 200);
await measureOnce(VARIANTS.hand, 200);
await measureOnce(VARIANTS_3.reins, 200, K3);
await measureOnce(VARIANTS_3.hand, 200, K3);

/** @type {Record<string, { inFlightBytesPerRun: number[], retainedBytesPerRun: number[] }>} */
const result = {};
for (const name of /** @type {const} */ (['reins', 'hand'])) {
  const samples = {
    inFlightBytesPerRun: /** @type {number[]} */ ([]),
    retainedBytesPerRun: /** @type {number[]} */ ([]),
  };
  for (let r = 0; r < reps; r++) {
    const m = await measureOnce(VARIANTS[name], runs);
    samples.inFlightBytesPerRun.push(m.inFlightBytesPerRun);
    samples.retainedBytesPerRun.push(m.retainedBytesPerRun);
  }
  result[name] = samples;
}
/** @type {Record<string, number[]>} */
const afterThree = { reins: [], hand: [] };
for (let r = 0; r < reps; r++) {
  for (const name of /** @type {const} */ (['reins', 'hand'])) {
    afterThree[name]?.push((await measureOnce(VARIANTS_3[name], runs, K3)).inFlightBytesPerRun);
  }
}
const three = { k: K3, blockAt: BLOCK_AT_3, inFlightBytesPerRun: afterThree };
process.stdout.write(
  `${JSON.stringify({ runs, reps, k: K, blockAt: BLOCK_AT, ...result, afterThree: three })}\n`,
);
