// @ts-check
/** The measurements that run in child processes: memory (needs --expose-gc) and import time. */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { summarize } from './report.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');

// ---------------------------------------------------------------------------------------
// 4. Memory per run in flight (child process with --expose-gc).

/** @param {number} runs @param {number} reps */
export function memory(runs, reps) {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', join(here, 'memory.js'), String(runs), String(reps)],
    {
      encoding: 'utf8',
      cwd: repo,
    },
  );
  /** @type {{ runs: number, reps: number, k: number, blockAt: number, reins: Record<string, number[]>, hand: Record<string, number[]>, afterThree: { k: number, blockAt: number, inFlightBytesPerRun: Record<string, number[]> } }} */
  const parsed = JSON.parse(out);
  /** @param {Record<string, number[]>} m */
  const pick = (m) => ({
    inFlightBytesPerRun: summarize(m.inFlightBytesPerRun ?? []),
    retainedBytesPerRunAfterFinish: summarize(m.retainedBytesPerRun ?? []),
    samples: m,
  });
  return {
    runs: parsed.runs,
    reps: parsed.reps,
    k: parsed.k,
    blockAt: parsed.blockAt,
    reins: pick(parsed.reins),
    hand: pick(parsed.hand),
    /** K=5 runs blocked on model call 4: after three tool steps. */
    afterThree: {
      k: parsed.afterThree.k,
      blockAt: parsed.afterThree.blockAt,
      reins: summarize(parsed.afterThree.inFlightBytesPerRun.reins ?? []),
      hand: summarize(parsed.afterThree.inFlightBytesPerRun.hand ?? []),
    },
  };
}

// ---------------------------------------------------------------------------------------
// 5. Import time: fresh processes, `await import('reins')` minus an empty ESM eval.

/** @param {number} times */
export function importTime(times) {
  const IMPORT =
    "const t = performance.now(); await import('reins'); process.stdout.write(String(performance.now() - t));";
  /** @param {string} code */
  const spawnMs = (code) => {
    const t0 = performance.now();
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: repo,
      encoding: 'utf8',
    });
    const ms = performance.now() - t0;
    if (child.status !== 0) throw new Error(`import-time child failed: ${child.stderr}`);
    return { ms, stdout: child.stdout };
  };
  spawnMs(''); // warm the file cache
  spawnMs(IMPORT);
  /** @type {number[]} */ const baseline = [];
  /** @type {number[]} */ const withImport = [];
  /** @type {number[]} */ const inProcess = [];
  for (let i = 0; i < times; i++) {
    baseline.push(spawnMs('').ms);
    const run = spawnMs(IMPORT);
    withImport.push(run.ms);
    inProcess.push(Number(run.stdout));
  }
  const base = summarize(baseline);
  const imp = summarize(withImport);
  return {
    times,
    baselineMs: base,
    withImportMs: imp,
    importCostMs: imp.median - base.median,
    inProcessImportMs: summarize(inProcess),
  };
}
