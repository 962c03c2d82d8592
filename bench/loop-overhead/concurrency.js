// @ts-check
/* global performance */
/**
 * Runs/s by runs in flight: reins and the hand loop, K=3, interleaved batch by batch in one
 * process, at each level. Where the ratio moves with the level, what costs is something that
 * grows with the runs in flight (their memory, the garbage collector's work on it), not the
 * work of a step.
 *
 *   node bench/loop-overhead/concurrency.js [levels] [runs per level]
 *   node bench/loop-overhead/concurrency.js 2,10,100,300 60000
 */
import { scriptModel } from 'reins';
import { expectedAnswer, reinsResult, runHand, scriptFor, startReins } from './workload.js';

const K = 3;
const levels = (process.argv[2] ?? '1,2,5,10,20,50,100,200,300').split(',').map(Number);
const runsPerLevel = Number(process.argv[3] ?? 50_000);
if (levels.some((c) => !Number.isInteger(c) || c < 1) || !(runsPerLevel > 0)) {
  console.error('usage: concurrency.js [levels, e.g. 10,100] [runs per level]');
  process.exit(2);
}

/** @type {Record<'reins' | 'hand', (model: import('reins').Model) => Promise<import('./workload.js').Outcome>>} */
const variants = {
  reins: (model) => reinsResult(startReins(K, model)),
  hand: (model) => runHand(K, model),
};

/**
 * One batch of `c` runs at once; runs/s.
 * @param {'reins' | 'hand'} name
 * @param {number} c
 */
async function batch(name, c) {
  const models = Array.from({ length: c }, () => scriptModel(scriptFor(K)));
  const t0 = performance.now();
  const outcomes = await Promise.all(models.map((model) => variants[name](model)));
  const seconds = (performance.now() - t0) / 1000;
  for (const outcome of outcomes) {
    if (outcome.answer !== expectedAnswer(K) || outcome.toolCalls !== K - 1)
      throw new Error(`${name}: wrong outcome ${JSON.stringify(outcome)}`);
  }
  return c / seconds;
}

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
const int = (/** @type {number} */ n) => Math.round(n).toLocaleString('en-US');

// Optimized code before the first level is timed (each level warms up again too).
for (let i = 0; i < 2_000; i++) {
  await batch('reins', 10);
  await batch('hand', 10);
}
console.log(`Runs/s by runs in flight, K=3 (${process.version}, ${runsPerLevel} runs per level and loop)\n`);
console.log('| runs in flight | reins runs/s | hand runs/s | reins / hand |');
console.log('| -------------: | -----------: | ----------: | -----------: |');
for (const c of levels) {
  const batches = Math.max(20, Math.round(runsPerLevel / c));
  for (let i = 0; i < batches / 4; i++) {
    await batch('reins', c);
    await batch('hand', c);
  }
  /** @type {{ reins: number[], hand: number[] }} */
  const rates = { reins: [], hand: [] };
  for (let b = 0; b < batches; b++) {
    /** @type {('reins' | 'hand')[]} */
    const order = b % 2 === 0 ? ['reins', 'hand'] : ['hand', 'reins']; // who goes first alternates
    for (const name of order) rates[name].push(await batch(name, c));
  }
  const reins = median(rates.reins);
  const hand = median(rates.hand);
  console.log(`| ${c} | ${int(reins)} | ${int(hand)} | ${(reins / hand).toFixed(3)}× |`);
}
