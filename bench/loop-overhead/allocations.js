// @ts-check
/**
 * What a K=3 run allocates, by the function that allocates it: objects and bytes per run,
 * counted by V8's allocation tracker (every allocation, also what the garbage collector frees
 * soon after), 100 runs in flight. Tracking turns off allocation folding and escape analysis,
 * so the counts are higher than in a normal run (~13 KB a reins run by sampling, 22 KB here):
 * compare builds and loops with it, not with a run's real bytes.
 *
 *   node bench/loop-overhead/allocations.js [reins|hand] [rows]
 */
import { Session } from 'node:inspector/promises';
import { scriptModel } from 'reins';
import { reinsResult, runHand, scriptFor, startReins } from './workload.js';

const K = 3;
const IN_FLIGHT = 100;
const BATCHES = 20;
const which = process.argv[2] ?? 'reins';
const rows = Number(process.argv[3] ?? 40);
if (which !== 'reins' && which !== 'hand') {
  console.error('usage: allocations.js [reins|hand] [rows]');
  process.exit(2);
}
/** @param {import('reins').Model} model */
const run = (model) => (which === 'reins' ? reinsResult(startReins(K, model)) : runHand(K, model));
const batch = () => Promise.all(Array.from({ length: IN_FLIGHT }, () => run(scriptModel(scriptFor(K)))));

for (let i = 0; i < 300; i++) await batch(); // optimized code first, as in the timed benches
const session = new Session();
session.connect();
/** @type {string[]} */
const chunks = [];
session.on('HeapProfiler.addHeapSnapshotChunk', (message) => chunks.push(message.params.chunk));
await session.post('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true });
for (let i = 0; i < BATCHES; i++) await batch();
await session.post('HeapProfiler.stopTrackingHeapObjects', { reportProgress: false });
session.disconnect();

/**
 * The parts of a heap snapshot read here.
 * @typedef {{
 *   snapshot: { meta: { trace_function_info_fields: string[], trace_node_fields: string[] } },
 *   trace_function_infos: number[], trace_tree: unknown[], strings: string[] }} Snapshot
 */
const snapshot = /** @type {Snapshot} */ (JSON.parse(chunks.join('')));
const infoFields = snapshot.snapshot.meta.trace_function_info_fields;
const nodeFields = snapshot.snapshot.meta.trace_node_fields.length; // id, function, count, size, children
const infos = snapshot.trace_function_infos;
const at = (/** @type {string} */ field) => infoFields.indexOf(field);

/** @param {number} index */
function functionName(index) {
  const base = index * infoFields.length;
  const name = snapshot.strings[infos[base + at('name')] ?? 0] || '(anonymous)';
  const script = (snapshot.strings[infos[base + at('script_name')] ?? 0] ?? '')
    .split('/')
    .slice(-2)
    .join('/');
  return script === '' ? name : `${name} (${script}:${infos[base + at('line')]})`;
}

/** @type {Map<string, { count: number, bytes: number }>} */
const byFunction = new Map();
let objects = 0;
let bytes = 0;
/** @param {unknown[]} flat nodes laid out flat: function, count, size, children */
function walk(flat) {
  for (let i = 0; i < flat.length; i += nodeFields) {
    const [fn, count, size, children] = /** @type {[number, number, number, unknown[]]} */ (
      flat.slice(i + 1, i + nodeFields)
    );
    if (count > 0) {
      const name = functionName(fn);
      const entry = byFunction.get(name) ?? { count: 0, bytes: 0 };
      entry.count += count;
      entry.bytes += size;
      byFunction.set(name, entry);
      objects += count;
      bytes += size;
    }
    walk(children);
  }
}
walk(snapshot.trace_tree);

const runs = BATCHES * IN_FLIGHT;
console.log(
  `${which}: ${(objects / runs).toFixed(1)} objects and ${Math.round(bytes / runs)} bytes a run (allocation tracking)\n`,
);
console.log('| objects / run | bytes / run | allocated in |');
console.log('| ------------: | ----------: | ------------ |');
const sorted = [...byFunction].sort((a, b) => b[1].count - a[1].count).slice(0, rows);
for (const [name, entry] of sorted) {
  console.log(`| ${(entry.count / runs).toFixed(2)} | ${Math.round(entry.bytes / runs)} | ${name} |`);
}
