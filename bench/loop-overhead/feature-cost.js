// @ts-check
/* global performance */
/**
 * What each of reins's per-step safeguards costs with 100 runs in flight: builds of the loop
 * with one safeguard taken out (a copy of packages/reins/dist with one text replaced), each run
 * against the real build batch for batch, with the hand loop for the ratio. Each pair runs in
 * processes of its own (two, the builds loaded in either order; medians): with every variant
 * in one process, the JIT's choices made later variants read up to 10% slow or fast.
 * Measures only: nothing here is a way to run reins. A replacement whose text is no longer in
 * the build stops the tool (the build changed: update the text).
 *
 *   npm run build && node bench/loop-overhead/feature-cost.js [seconds per process] [names]
 *   node bench/loop-overhead/feature-cost.js 30 record-steps,all
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ADD_TOOL, expectedAnswer, handLoop, QUERY, scriptFor, TOOLS } from './workload.js';

const K = 3;
const IN_FLIGHT = 100;
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'packages', 'reins', 'dist');

/** @typedef {{ file: string, from: string, to: string }} Replacement */

/** Each safeguard and the replacements that take it out of the built loop. @type {Record<string, { what: string, cuts: Replacement[] }>} */
const FEATURES = {
  'record-steps': {
    what: "the record's steps, built from the events (an act-only stub is left for the check)",
    cuts: [
      {
        file: 'record.js',
        from: "if (event.phase !== 'progress')\n                    steps.push(recordStep(event));",
        to: "if (event.phase === 'act')\n                    steps.push({ phase: 'act' });",
      },
    ],
  },
  'output-check': {
    what: "the tool result checked against the tool's output schema",
    cuts: [
      {
        file: 'loop/check-result.js',
        from: 'const output = checkAgainst(tool.output, invoked.output);',
        to: 'const output = { ok: true, value: invoked.output };',
      },
    ],
  },
  'pii-masking': {
    what: 'PII masking of the tool result (and its copy as JSON)',
    cuts: [
      { file: 'loop/check-result.js', from: 'masked = maskPii(output.value);', to: 'masked = output.value;' },
    ],
  },
  'uuid-act-ids': {
    what: 'a UUIDv4 for each act (a counter instead)',
    cuts: [
      {
        file: 'loop/run-loop.js',
        from: 'const draft = actDraft(step, deps.newId(),',
        to: 'const draft = actDraft(step, String(++globalThis.__reinsActs),',
      },
      { file: 'index.js', from: '', to: 'globalThis.__reinsActs = 0;\n' },
    ],
  },
  'input-sandbox': {
    what: "the model's tool input copied, strings trimmed and bounded, stray keys found",
    cuts: [
      {
        file: 'loop/execute-action.js',
        from: 'given = sandboxWithStrayKeys(request.input, inputSchema, env.maxStringChars ?? DEFAULT_STRING_CHARS, sandboxIssues, stray);',
        to: 'given = request.input;',
      },
    ],
  },
  'kept-prompts': {
    what: "each step's prompt kept for the record (recordPrompts: true, the default)",
    cuts: [
      {
        file: 'loop/run-agent.js',
        from: 'prompts: options.recordPrompts === false ? undefined : new PromptKeeper(),',
        to: 'prompts: undefined,',
      },
    ],
  },
};
const ALL = Object.keys(FEATURES);

const PROCESSES = 2;

/** @param {number[]} values (an even count: the mean of the middle two) */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2;
}

/**
 * One batch of runs of a build: runs/s. Every run is checked (answer and tool calls).
 * @param {string} build
 */
async function loader(build) {
  /** @type {typeof import('reins')} */
  const reins = await import(pathToFileURL(join(build, 'index.js')).href);
  const add = reins.defineTool(ADD_TOOL);
  const one = async (/** @type {import('reins').Model} */ model) => {
    const record = await reins.runAgent({ query: QUERY, model, tools: [add], limits: { maxSteps: K } })
      .result;
    const acts = record.steps.filter((s) => s.phase === 'act').length;
    if (record.status !== 'success' || record.final_answer !== expectedAnswer(K) || acts !== K - 1)
      throw new Error(`${build}: run ended ${record.status} with ${acts} acts: ${record.final_answer}`);
  };
  return async () => {
    const models = Array.from({ length: IN_FLIGHT }, () => reins.scriptModel(scriptFor(K)));
    const t0 = performance.now();
    await Promise.all(models.map(one));
    return IN_FLIGHT / ((performance.now() - t0) / 1000);
  };
}

/** @typedef {{ withIt: number, without: number, hand: number, gain: number }} PairResult */

/**
 * The child's part: the real build and one variant (loaded in the order given), batch for
 * batch for `seconds`, and the hand loop; prints a `PairResult` as JSON.
 * @param {string} baseDir
 * @param {string} variantDir
 * @param {boolean} variantFirst
 * @param {number} seconds
 */
async function measurePair(baseDir, variantDir, variantFirst, seconds) {
  const variant = variantFirst ? await loader(variantDir) : undefined;
  const base = await loader(baseDir);
  const other = variant ?? (await loader(variantDir));
  const { scriptModel } = await import('reins');
  const hand = async () => {
    const models = Array.from({ length: IN_FLIGHT }, () => scriptModel(scriptFor(K)));
    const t0 = performance.now();
    const outcomes = await Promise.all(models.map((m) => handLoop(m, TOOLS, QUERY, K)));
    if (outcomes.some((o) => o.answer !== expectedAnswer(K))) throw new Error('hand loop: wrong answer');
    return IN_FLIGHT / ((performance.now() - t0) / 1000);
  };
  for (let i = 0; i < 1_500; i++) {
    await base();
    await other();
    await hand();
  }
  /** @type {{ withIt: number[], without: number[], hand: number[], pairs: number[] }} */
  const rates = { withIt: [], without: [], hand: [], pairs: [] };
  const started = performance.now();
  for (let i = 0; performance.now() - started < seconds * 1000; i++) {
    // Who goes first alternates; the pair's ratio is taken batch for batch.
    let withIt;
    let without;
    if (i % 2 === 0) {
      withIt = await base();
      without = await other();
    } else {
      without = await other();
      withIt = await base();
    }
    rates.withIt.push(withIt);
    rates.without.push(without);
    rates.pairs.push(without / withIt);
    rates.hand.push(await hand());
  }
  /** @type {PairResult} */
  const result = {
    withIt: median(rates.withIt),
    without: median(rates.without),
    hand: median(rates.hand),
    gain: median(rates.pairs) - 1,
  };
  console.log(JSON.stringify(result));
}

if (process.argv[2] === '--pair') {
  const [baseDir, variantDir, order, secs] = process.argv.slice(3);
  await measurePair(String(baseDir), String(variantDir), order === 'variant-first', Number(secs));
  process.exit(0);
}

const seconds = Number(process.argv[2] ?? 20);
const names = (process.argv[3] ?? [...ALL, 'all'].join(',')).split(',');
const unknown = names.filter((n) => n !== 'all' && !(n in FEATURES));
if (!(seconds > 0) || unknown.length > 0) {
  console.error(`usage: feature-cost.js [seconds per process] [${ALL.join(',')},all]`);
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'reins-feature-cost-'));
// The copies import zod like the build does: from the repository's node_modules.
symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

/**
 * A copy of the build with these features taken out (none: the build as it is).
 * @param {string} name
 * @param {string[]} features
 */
function buildWithout(name, features) {
  const copy = join(work, name);
  cpSync(dist, copy, { recursive: true });
  for (const cut of features.flatMap((f) => FEATURES[f]?.cuts ?? [])) {
    const file = join(copy, cut.file);
    const text = readFileSync(file, 'utf8');
    if (cut.from === '') writeFileSync(file, cut.to + text);
    else if (!text.includes(cut.from)) {
      console.error(`feature-cost: ${cut.file} no longer holds the text to replace:\n  ${cut.from}`);
      process.exit(1);
    } else writeFileSync(file, text.replace(cut.from, cut.to));
  }
  return copy;
}

const baseDir = buildWithout('base', []);
const variants = names.map((name) => ({ name, dir: buildWithout(name, name === 'all' ? ALL : [name]) }));
console.log(
  `What each safeguard costs: K=${K}, ${IN_FLIGHT} runs in flight, ${PROCESSES} processes of ${seconds} s a variant, medians (${process.version})\n`,
);
console.log('| taken out | what it does | runs/s with it → without | gain | vs hand loop, with → without |');
console.log('| --------- | ------------ | -----------------------: | ---: | ---------------------------: |');
const int = (/** @type {number} */ n) => Math.round(n).toLocaleString('en-US');
for (const { name, dir } of variants) {
  /** @type {PairResult[]} */
  const results = [];
  for (let p = 0; p < PROCESSES; p++) {
    const order = p % 2 === 0 ? 'base-first' : 'variant-first';
    const me = fileURLToPath(import.meta.url);
    const child = spawnSync(process.execPath, [me, '--pair', baseDir, dir, order, String(seconds)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (child.status !== 0) {
      console.error(`feature-cost: the ${name} pair failed (exit ${child.status})`);
      process.exit(1);
    }
    results.push(/** @type {PairResult} */ (JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '')));
  }
  const of = (/** @type {keyof PairResult} */ key) => median(results.map((r) => r[key]));
  const [withIt, without, h] = [of('withIt'), of('without'), of('hand')];
  const what = name === 'all' ? `all ${ALL.length} above` : (FEATURES[name]?.what ?? '');
  const gains = results.map((r) => `${(r.gain * 100).toFixed(1)}%`).join(', ');
  console.log(
    `| ${name} | ${what} | ${int(withIt)} → ${int(without)} | ${gains} | ${(withIt / h).toFixed(3)}× → ${(without / h).toFixed(3)}× |`,
  );
}
