// @ts-check
/**
 * Storage benchmark: records real runs of the kitchen's two agents (record-runs.js), then
 * prints what they cost to store — plain JSON lines against the run codec's bodies — and
 * what PGlite holds on disk for each, and whether coalescing appends of one tick into one
 * statement would pay on PGlite. Imports the BUILT packages (`npm run bench:storage` builds).
 *
 *   node bench/run-storage/run.js [--quick]
 */
import { PGlite } from '@electric-sql/pglite';
import { performance } from 'node:perf_hooks';
import { sqlRunStore } from '@reins/stores';
import { fmt, int, summarize, table } from '../loop-overhead/report.js';
import { measureStorage, saved, withoutPrompts } from './measure.js';
import { recordKitchenRuns } from './record-runs.js';

const QUICK = process.argv.includes('--quick');
const runs = await recordKitchenRuns(QUICK ? { limit: 40 } : {});
const { byAgent, total, mismatches } = measureStorage(runs);
if (mismatches.length > 0)
  throw new Error(`events that did not decode to themselves: ${mismatches.join(', ')}`);
// The same runs without their kept prompts (as with `recordPrompts: false`): what keeping them costs.
const bare = measureStorage(withoutPrompts(runs));

const row = (/** @type {string} */ name, /** @type {import('./measure.js').Tally} */ t) => [
  name,
  int(t.runs),
  int(t.events),
  int(t.plainBytes),
  int(t.encodedBytes),
  `${fmt(saved(t) * 100, 1)}%`,
  int(t.encodedBytes / t.runs),
];
console.log(`\n## Stored bytes of ${runs.length} recorded kitchen runs\n`);
console.log(
  table(
    ['agent', 'runs', 'events', 'plain JSON bytes', 'delta-encoded bytes', 'saved', 'bytes/run'],
    [...[...byAgent].map(([agent, t]) => row(agent, t)), row('total', total)],
  ),
);

console.log(`\n## Kept prompts (the prompt debugger, on by default): stored bytes per run\n`);
console.log(
  table(
    ['agent', 'bytes/run without prompts', 'bytes/run with prompts', 'kept prompts, bytes/run'],
    [...byAgent].map(([agent, t]) => {
      const off = bare.byAgent.get(agent) ?? t;
      const perRun = (/** @type {import('./measure.js').Tally} */ x) => x.encodedBytes / x.runs;
      return [agent, int(perRun(off)), int(perRun(t)), int(perRun(t) - perRun(off))];
    }),
  ),
);

// What PGlite holds: the store's event rows against the same events as plain JSON lines in a
// table of the same layout (PostgreSQL compresses values over ~2 kB itself: TOAST).
const pg = await PGlite.create();
const store = await sqlRunStore(pg);
await pg.query('CREATE TABLE naive_events (run_id text, seq integer, line text, PRIMARY KEY (run_id, seq))');
for (const run of runs) {
  const first = run.events[0];
  if (first === undefined) continue;
  await store.create({
    runId: first.runId,
    ownerId: run.user,
    agent: run.agent,
    request: { query: run.query },
    createdAt: first.at,
  });
  for (const event of run.events) {
    await store.append(event.runId, [event]); // as a server appends: event by event
    await pg.query('INSERT INTO naive_events VALUES ($1, $2, $3)', [
      event.runId,
      event.seq,
      JSON.stringify(event),
    ]);
  }
}
await pg.query('VACUUM ANALYZE');
const size = async (/** @type {string} */ relation) =>
  Number((await pg.query(`SELECT pg_total_relation_size('${relation}') AS n`)).rows[0]?.['n'] ?? NaN);
const naiveDisk = await size('naive_events');
const storeDisk = await size('reins_run_events');
console.log('\n## PGlite on disk (table + indexes + TOAST, after VACUUM)\n');
console.log(
  table(
    ['table', 'bytes', 'saved'],
    [
      ['plain JSON lines', int(naiveDisk), ''],
      ['reins_run_events (delta-encoded)', int(storeDisk), `${fmt((1 - storeDisk / naiveDisk) * 100, 1)}%`],
    ],
  ),
);

// Coalescing: 200 runs each appending one event in the same tick, as a statement each or as
// one statement: raw inserts of the same rows, timed — why the store coalesces.
await pg.query('CREATE TABLE tick_rows (run_id text, seq integer, body text, PRIMARY KEY (run_id, seq))');
const bodies = Array.from({ length: 200 }, (_, i) => `{"v":1,"b":3,"d":{"~3":${i},"at":0.4182}}`);
/** @type {number[]} */
const separate = [];
/** @type {number[]} */
const together = [];
for (let round = 0; round < (QUICK ? 5 : 30); round++) {
  let start = performance.now();
  await Promise.all(
    bodies.map((body, i) => pg.query('INSERT INTO tick_rows VALUES ($1, $2, $3)', [`s${i}`, round, body])),
  );
  separate.push(performance.now() - start);
  start = performance.now();
  await pg.query('INSERT INTO tick_rows SELECT * FROM unnest($1::text[], $2::integer[], $3::text[])', [
    bodies.map((_, i) => `t${i}`),
    bodies.map(() => round),
    bodies,
  ]);
  together.push(performance.now() - start);
}
// The store itself: 200 runs appending one event each in the same tick (coalesced by it).
/** @type {number[]} */
const viaStore = [];
const tickRuns = bodies.map((_, i) => `tick-run-${i}`);
for (const runId of tickRuns)
  await store.create({ runId, ownerId: 'bench', agent: 'kitchen', request: {}, createdAt: 0 });
const sample = runs[0]?.events ?? [];
for (let seq = 0; seq < Math.min(sample.length, QUICK ? 5 : 30); seq++) {
  const event = sample[seq];
  if (event === undefined) break;
  const start = performance.now();
  await Promise.all(tickRuns.map((runId) => store.append(runId, [{ ...event, runId }])));
  viaStore.push(performance.now() - start);
}
const a = summarize(separate);
const b = summarize(together);
const c = summarize(viaStore);
console.log('\n## Appends of one tick on PGlite: 200 runs, one event each (ms per tick)\n');
console.log(
  table(
    ['form', 'median', 'p95', 'per append (µs, median)'],
    [
      ['200 statements (raw)', fmt(a.median), fmt(a.p95), fmt((a.median / 200) * 1000, 0)],
      ['1 statement (raw)', fmt(b.median), fmt(b.p95), fmt((b.median / 200) * 1000, 0)],
      [
        'sqlRunStore.append ×200 (encode + guarded, coalesced)',
        fmt(c.median),
        fmt(c.p95),
        fmt((c.median / 200) * 1000, 0),
      ],
    ],
  ),
);
await pg.close();
