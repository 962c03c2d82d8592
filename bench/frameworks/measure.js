// @ts-check
/** Spawning the framework children (child.js) and the import-time processes, all on Node 24. */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { here, node24 } from './setup.js';

/** Flags every Node 24 child gets: the network guard (same cost for the import baseline). */
const GUARD = ['--import', './no-network.js'];
/** Environment for the children: frameworks' telemetry and tracing off, whatever they honour. */
const ENV = {
  ...process.env,
  OPENAI_AGENTS_DISABLE_TRACING: '1',
  MASTRA_TELEMETRY_DISABLED: '1',
  LANGCHAIN_TRACING_V2: 'false',
  LANGSMITH_TRACING: 'false',
  NODE_ENV: 'production',
};

/**
 * Runs child.js for one adapter; its last stdout line is the JSON result (or `{ error }`).
 * @param {string} adapter
 * @param {'timing' | 'memory'} measure
 * @param {object} options
 * @returns {{ ok: true, value: any, stderr: string } | { ok: false, error: string, stderr: string }}
 */
// The child's JSON has a shape per measure, read by run.js: typed there, not here.
export function runChild(adapter, measure, options) {
  const flags = measure === 'memory' ? ['--expose-gc', ...GUARD] : GUARD;
  const child = spawnSync(node24, [...flags, 'child.js', adapter, measure, JSON.stringify(options)], {
    cwd: here,
    env: ENV,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const stderr = child.stderr ?? '';
  const last = (child.stdout ?? '').trim().split('\n').pop() ?? '';
  /** @type {any} */ // JSON of the child, checked below
  let parsed;
  try {
    parsed = JSON.parse(last);
  } catch {
    return {
      ok: false,
      error: `exit ${child.status ?? child.signal}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
      stderr,
    };
  }
  if (child.status !== 0 || parsed.error !== undefined)
    return { ok: false, error: String(parsed.error), stderr };
  return { ok: true, value: parsed, stderr };
}

/** @param {string[]} specifiers */
const importCode = (specifiers) =>
  specifiers.length === 0 ? '' : `for (const s of ${JSON.stringify(specifiers)}) await import(s);`;

/** @param {string} code */
function spawnMs(code) {
  const t0 = performance.now();
  const child = spawnSync(node24, [...GUARD, '--input-type=module', '-e', code], {
    cwd: here,
    env: ENV,
    encoding: 'utf8',
  });
  const ms = performance.now() - t0;
  if (child.status !== 0) throw new Error(`import child failed: ${child.stderr}`);
  return ms;
}

/**
 * Import ms per adapter: fresh Node 24 processes importing the adapter's entry points against
 * an empty `-e ''`, `times` each, interleaved (baseline, then each adapter, order rotating).
 * The cost is the difference of medians.
 * @param {Record<string, string[]>} importsByAdapter
 * @param {number} times
 */
export function importTimes(importsByAdapter, times) {
  const names = Object.keys(importsByAdapter);
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries([['', []], ...names.map((n) => [n, []])]);
  for (const name of names) spawnMs(importCode(importsByAdapter[name] ?? [])); // file cache
  for (let i = 0; i < times; i++) {
    samples['']?.push(spawnMs(''));
    for (let j = 0; j < names.length; j++) {
      const name = /** @type {string} */ (names[(i + j) % names.length]);
      samples[name]?.push(spawnMs(importCode(importsByAdapter[name] ?? [])));
    }
  }
  return samples;
}
