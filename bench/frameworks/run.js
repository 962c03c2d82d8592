// @ts-check
/**
 * Reins side by side with the frameworks a user would pick instead: the same scenario
 * (scenario.js) for each, each in its own Node 24 process (child.js). `npm run bench:frameworks`
 * at the root builds, installs this directory's own pinned packages if missing, and runs this.
 *
 *   node bench/frameworks/run.js [--quick] [--only reins,hand,ai-sdk] [--out <file.json>]
 *
 * Prints a markdown table (with the versions, Node, CPU, load and commit) and writes
 * bench/results/frameworks-<timestamp>.json and frameworks-latest.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { fmt, int, summarize, table, gitState } from '../loop-overhead/report.js';
import { FRAMEWORKS } from './frameworks.js';
import { importTimes, runChild } from './measure.js';
import { ensureInstalled, here } from './setup.js';

const repo = join(here, '..', '..');
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const flag = (/** @type {string} */ name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = flag('--only')?.split(',');
const outFile = flag('--out');
const frameworks = FRAMEWORKS.filter((f) => only === undefined || only.includes(f.id));

const PLAN = QUICK
  ? { rounds: 1, ms: 300, warmupMs: 200, memoryRuns: 200, memoryReps: 1, memoryMaxMs: 0, importTimes: 3 }
  : {
      rounds: 2,
      ms: 2500,
      warmupMs: 1000,
      memoryRuns: 1000,
      memoryReps: 3,
      memoryMaxMs: 30_000,
      importTimes: 10,
    };

/** Targets from issue 17 (items 5 and 6). */
const TARGETS = {
  aiSdkOverReins: 10,
  reinsOverHand: 3,
  runsPerSec: 10_000,
  runsPerSecOfHand: 0.35,
  bytesPerRun: 8 * 1024,
};

/** @param {string} file */
const versionAt = (file) => /** @type {string} */ (JSON.parse(readFileSync(file, 'utf8')).version);
/** @param {string} name */
const versionOf = (name) =>
  name === 'reins'
    ? versionAt(join(repo, 'packages/reins/package.json'))
    : versionAt(join(here, 'node_modules', name, 'package.json'));

/**
 * @typedef {{ k3: number[], k20: number[], runsPerSec: number[], warnings: string[], error?: string, memoryError?: string,
 *   memory?: { inFlightBytesPerRun: number[], leftAfterBytesPerRun: number[], runs: number, reps: number }, importMs?: number }} Samples
 */

async function main() {
  const { node } = ensureInstalled();
  const env = {
    node,
    parentNode: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length,
    loadavgAtStart: os.loadavg(),
    ...gitState(repo),
    versions: Object.fromEntries(
      [...new Set(['zod', ...frameworks.flatMap((f) => f.packages)])].map((p) => [p, versionOf(p)]),
    ),
    quick: QUICK,
    plan: PLAN,
  };
  const versionText = Object.entries(env.versions)
    .map(([p, v]) => `${p} ${v}`)
    .join(' · ');
  console.log(`# Reins and other agent frameworks — ${new Date().toISOString()}\n`);
  console.log(
    `node ${env.node} (every framework's process) · ${env.cpu} × ${env.cpus} · commit ${env.commit ?? '?'}` +
      `${env.dirty ? ' + uncommitted reins src changes' : ''} · load ${env.loadavgAtStart.map((l) => l.toFixed(2)).join(' ')}` +
      `${QUICK ? ' · QUICK' : ''}\n\n${versionText}\n`,
  );

  /** @type {Record<string, Samples>} */
  const samples = Object.fromEntries(
    frameworks.map((f) => [f.id, { k3: [], k20: [], runsPerSec: [], warnings: [] }]),
  );
  /** @param {Samples} s @param {string} stderr */
  const noteWarnings = (s, stderr) => {
    for (const line of stderr.split('\n'))
      if (line.trim() !== '' && s.warnings.length < 20) s.warnings.push(line);
  };

  // µs per step and runs/s: rounds of one process per framework, the order rotating.
  for (let round = 0; round < PLAN.rounds; round++) {
    for (let j = 0; j < frameworks.length; j++) {
      const f = /** @type {(typeof frameworks)[number]} */ (frameworks[(round + j) % frameworks.length]);
      const s = /** @type {Samples} */ (samples[f.id]);
      if (s.error !== undefined) continue;
      const t0 = Date.now();
      const out = runChild(f.id, 'timing', { ms: PLAN.ms, warmupMs: PLAN.warmupMs });
      noteWarnings(s, out.stderr);
      if (!out.ok) s.error = out.error;
      else {
        s.k3 = s.k3.concat(out.value.k3);
        s.k20 = s.k20.concat(out.value.k20);
        s.runsPerSec = s.runsPerSec.concat(out.value.runsPerSec);
      }
      console.error(
        `  round ${round + 1}/${PLAN.rounds} ${f.id}: ${out.ok ? 'ok' : `FAILED ${out.error}`} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
      );
    }
  }
  // Heap per run in flight: one --expose-gc process per framework.
  for (const f of frameworks) {
    const s = /** @type {Samples} */ (samples[f.id]);
    if (s.error !== undefined) continue;
    const t0 = Date.now();
    const out = runChild(f.id, 'memory', {
      runs: PLAN.memoryRuns,
      reps: PLAN.memoryReps,
      maxMs: PLAN.memoryMaxMs,
    });
    noteWarnings(s, out.stderr);
    if (!out.ok) s.memoryError = out.error;
    else s.memory = out.value;
    console.error(
      `  memory ${f.id}: ${out.ok ? 'ok' : `FAILED ${out.error}`} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
  // Import ms: fresh processes, interleaved.
  const imports = importTimes(Object.fromEntries(frameworks.map((f) => [f.id, f.imports])), PLAN.importTimes);
  const baseline = summarize(imports[''] ?? []).median;
  for (const f of frameworks) {
    const s = /** @type {Samples} */ (samples[f.id]);
    s.importMs = summarize(imports[f.id] ?? []).median - baseline;
  }

  const stats = Object.fromEntries(
    frameworks.map((f) => {
      const s = /** @type {Samples} */ (samples[f.id]);
      return [
        f.id,
        {
          label: f.label,
          versions: f.packages.map((p) => `${p}@${versionOf(p)}`),
          error: s.error,
          memoryError: s.memoryError,
          warnings: s.warnings,
          k3: summarize(s.k3),
          k20: summarize(s.k20),
          runsPerSec: summarize(s.runsPerSec),
          memoryBytesPerRun: summarize(s.memory?.inFlightBytesPerRun ?? []),
          memoryLeftAfterBytesPerRun: summarize(s.memory?.leftAfterBytesPerRun ?? []),
          importMs: s.importMs ?? NaN,
        },
      ];
    }),
  );
  printTables(stats, baseline);
  const result = {
    benchmark: 'frameworks',
    at: new Date().toISOString(),
    env: { ...env, loadavgAtEnd: os.loadavg() },
    targets: TARGETS,
    importBaselineMs: baseline,
    frameworks: stats,
    samples,
  };
  const dir = join(repo, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = outFile ?? join(dir, `frameworks-${result.at.replace(/[:.]/g, '-')}.json`);
  const json = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(file, json);
  if (outFile === undefined) writeFileSync(join(dir, 'frameworks-latest.json'), json);
  console.log(
    `\nload at end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} · wrote ${relative(process.cwd(), file)}`,
  );
  if (Object.values(stats).some((s) => s.error !== undefined || s.memoryError !== undefined))
    process.exitCode = 1;
}

/**
 * @typedef {{ label: string, versions: string[], error?: string, memoryError?: string, warnings: string[], k3: ReturnType<typeof summarize>,
 *   k20: ReturnType<typeof summarize>, runsPerSec: ReturnType<typeof summarize>, memoryBytesPerRun: ReturnType<typeof summarize>,
 *   memoryLeftAfterBytesPerRun: ReturnType<typeof summarize>, importMs: number }} Stats
 */

/** @param {number} r */
const ratio = (r) => `${fmt(r, r < 10 ? 2 : 0)}×`;

/** @param {Record<string, Stats>} stats @param {number} importBaseline */
function printTables(stats, importBaseline) {
  const reins = stats.reins;
  const hand = stats.hand;
  const rows = Object.entries(stats).map(([id, s]) => {
    if (s.error !== undefined)
      return [s.label, s.versions.join(' '), `FAILED: ${s.error}`, '', '', '', '', '', ''];
    const vsReins =
      reins === undefined || id === 'reins'
        ? '1×'
        : `${ratio(s.k3.median / reins.k3.median)} / ${ratio(s.k20.median / reins.k20.median)}`;
    return [
      s.label,
      s.versions.map((v) => v.replace(/^.*@/, '')).join(' + ') || '—',
      `${fmt(s.k3.median, 1)} (${fmt(s.k3.p95, 0)})`,
      `${fmt(s.k20.median, 1)} (${fmt(s.k20.p95, 0)})`,
      vsReins,
      int(s.runsPerSec.median),
      s.memoryError === undefined ? fmt(s.memoryBytesPerRun.median / 1024, 1) : 'FAILED',
      s.memoryError === undefined ? fmt(s.memoryBytesPerRun.median / 1024, 0) : 'FAILED',
      id === 'hand' ? '—' : fmt(s.importMs, 0),
    ];
  });
  console.log('## Same scenario, each framework in its own process (medians)\n');
  console.log(
    table(
      [
        'framework',
        'version',
        'µs/step K=3 (p95)',
        'µs/step K=20 (p95)',
        '× Reins (K=3 / K=20)',
        'runs/s, 100 in flight',
        'KB per run in flight',
        'MB per 1,000 runs',
        'import ms',
      ],
      rows,
    ),
  );
  console.log(
    `\n(import ms: difference of medians against an empty Node 24 process, ${fmt(importBaseline, 0)} ms)`,
  );
  for (const s of Object.values(stats)) {
    if (s.memoryError !== undefined) console.log(`\n${s.label}, memory: FAILED ${s.memoryError}`);
    if (s.warnings.length > 0)
      console.log(`\n${s.label} wrote to stderr:\n  ${s.warnings.slice(0, 5).join('\n  ')}`);
  }
  if (reins === undefined || reins.error !== undefined) return;
  const verdict = (/** @type {boolean} */ ok) => (ok ? 'PASS' : 'FAIL');
  /** @type {(string | number)[][]} */
  const summary = [];
  const ai = stats['ai-sdk'];
  if (ai !== undefined && ai.error === undefined) {
    for (const k of /** @type {const} */ (['k3', 'k20'])) {
      const ratio = ai[k].median / reins[k].median;
      summary.push([
        `AI SDK ÷ Reins, µs/step ${k.toUpperCase()}`,
        `${fmt(ratio, 1)}×`,
        `≥ ${TARGETS.aiSdkOverReins}×`,
        verdict(ratio >= TARGETS.aiSdkOverReins),
      ]);
    }
  }
  if (hand !== undefined && hand.error === undefined) {
    for (const k of /** @type {const} */ (['k3', 'k20'])) {
      const ratio = reins[k].median / hand[k].median;
      summary.push([
        `Reins ÷ hand loop, µs/step ${k.toUpperCase()}`,
        `${fmt(ratio, 2)}×`,
        `≤ ${TARGETS.reinsOverHand}×`,
        verdict(ratio <= TARGETS.reinsOverHand),
      ]);
    }
    const share = reins.runsPerSec.median / hand.runsPerSec.median;
    summary.push([
      'Reins runs/s ÷ hand loop runs/s, 100 in flight',
      `${fmt(share, 2)}×`,
      `≥ ${TARGETS.runsPerSecOfHand}×`,
      verdict(share >= TARGETS.runsPerSecOfHand),
    ]);
  }
  summary.push([
    'Reins runs/s, 100 in flight',
    int(reins.runsPerSec.median),
    `≥ ${int(TARGETS.runsPerSec)}`,
    verdict(reins.runsPerSec.median >= TARGETS.runsPerSec),
  ]);
  const bytes = reins.memoryBytesPerRun.median;
  summary.push([
    'Reins bytes per run in flight, after three tool steps',
    int(bytes),
    `≤ ${int(TARGETS.bytesPerRun)}`,
    verdict(bytes <= TARGETS.bytesPerRun),
  ]);
  console.log('\n## Targets (issue 17, items 5 and 6)\n');
  console.log(table(['measure', 'value', 'target', 'result'], summary));
}

await main();
