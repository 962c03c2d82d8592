// @ts-check
/**
 * Bytes a K=3 run allocates, reins and the hand loop, 100 runs in flight, in optimized code
 * (no allocation tracking, which turns off escape analysis: see allocations.js for where the
 * objects come from). Read from V8's new-space counter around 1,000 runs, in a young generation
 * large enough that no collection falls inside (the script starts itself again with it).
 * At 100 runs in flight every fresh kilobyte costs time: the allocation runs through memory the
 * caches no longer hold (docs/performance.md).
 *
 *   node bench/loop-overhead/allocated.js
 */
import { spawnSync } from 'node:child_process';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';

const FLAGS = ['--expose-gc', '--min-semi-space-size=128', '--max-semi-space-size=128'];
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
if (gc === undefined) {
  const child = spawnSync(process.execPath, [...FLAGS, fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}
const collect = /** @type {() => void} */ (gc);

const { scriptModel } = await import('reins');
const { reinsResult, runHand, scriptFor, startReins } = await import('./workload.js');

const K = 3;
const IN_FLIGHT = 100;
/** @type {Record<'reins' | 'hand', (model: import('reins').Model) => Promise<unknown>>} */
const loops = {
  reins: (model) => reinsResult(startReins(K, model)),
  hand: (model) => runHand(K, model),
};
const newSpaceUsed = () =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;
/** @param {'reins' | 'hand'} name */
const batch = (name) =>
  Promise.all(Array.from({ length: IN_FLIGHT }, () => loops[name](scriptModel(scriptFor(K)))));

for (let i = 0; i < 2_000; i++) {
  await batch('reins');
  await batch('hand');
}
console.log(
  `Bytes allocated a run: K=${K}, ${IN_FLIGHT} in flight, 1,000 runs a sample, 9 samples (${process.version})\n`,
);
console.log('| loop | median bytes a run | min | max |');
console.log('| ---- | -----------------: | --: | --: |');
for (const name of /** @type {const} */ (['reins', 'hand'])) {
  const samples = [];
  for (let s = 0; s < 9; s++) {
    collect(); // an empty young generation: nothing is collected while the sample runs
    const before = newSpaceUsed();
    for (let i = 0; i < 10; i++) await batch(name);
    samples.push((newSpaceUsed() - before) / (10 * IN_FLIGHT));
  }
  samples.sort((a, b) => a - b);
  const int = (/** @type {number | undefined} */ n) => Math.round(n ?? Number.NaN).toLocaleString('en-US');
  console.log(`| ${name} | ${int(samples[4])} | ${int(samples[0])} | ${int(samples[8])} |`);
}
