// @ts-check
/**
 * `maxSteps: 'auto'` against fixed limits (issue 18 item 4): every query of corpus.js is run
 * for real through the ReAct loop (`runAgent`, built package) with a scripted model that
 * needs the query's annotated lookups, under each step limit. Prints a markdown table:
 * the steps reserved per run (the cap: what a quota holds at admission), the steps used, and
 * the answers lost to the cap (runs stopped `max_steps` before their lookups were done).
 *
 * Two scripted models: `focused` makes its lookups, one per step, then answers; `wandering`
 * then re-checks (one more lookup) while the limit leaves it a step, at most 3 times — the
 * waste of a generous limit the seed describes ("你好" taking 8 steps). Offline, ~1 s.
 *
 *   node bench/auto-steps/run.js [--detail]
 */
import { z } from 'zod';
import { autoMaxSteps, defineTool, runAgent } from 'reins';
import { CORPUS, HELD_OUT } from './corpus.js';

/** @typedef {import('reins').Model} Model */
/** @typedef {import('reins').ModelRequest} ModelRequest */
/** @typedef {import('./corpus.js').CorpusQuery} CorpusQuery */

const RECHECKS = 3;

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks one thing up (the fridge, a recipe, a food, the weather …).',
  input: z.object({ topic: z.string() }),
  output: z.object({ topic: z.string(), found: z.boolean() }),
  readOnly: true,
  run: ({ topic }) => ({ topic, found: true }),
});

/**
 * @param {CorpusQuery} entry
 * @param {boolean} wanders
 * @returns {Model}
 */
function scriptedModel(entry, wanders) {
  const needed = entry.lookups.length;
  return {
    name: wanders ? 'script:wandering' : 'script:focused',
    async call(request) {
      const step = request.step;
      /** @type {Record<string, unknown>} */
      let reply;
      if (step <= needed) {
        reply = {
          thought: 'I need this first.',
          action: 'lookup',
          input: { topic: entry.lookups[step - 1] },
        };
      } else if (wanders && !request.finalStep && step - needed <= RECHECKS) {
        reply = { thought: 'Let me double-check.', action: 'lookup', input: { topic: `recheck ${step}` } };
      } else {
        reply = { thought: 'I have what I need.', final: `answer to ${entry.q}` };
      }
      return { ok: true, text: JSON.stringify(reply), usage: { inputTokens: 0, outputTokens: 0 } };
    },
  };
}

/** The seed's formula (seed 003 §4.3 tip 4), for comparison: characters / 20, within 3..12. */
const seedFormula = (/** @type {string} */ q) => Math.min(12, Math.max(3, Math.floor(q.length / 20)));

/** @type {readonly { name: string, limit: (q: string) => number | 'auto' }[]} */
const POLICIES = [
  { name: 'fixed 8', limit: () => 8 },
  { name: '`auto`', limit: () => 'auto' },
  { name: 'seed formula (len/20)', limit: seedFormula },
  { name: 'fixed 4 (the default)', limit: () => 4 },
];

/**
 * @param {CorpusQuery} entry
 * @param {number | 'auto'} maxSteps
 * @param {boolean} wanders
 */
async function runOne(entry, maxSteps, wanders) {
  const record = await runAgent({
    query: entry.q,
    model: scriptedModel(entry, wanders),
    tools: [lookup],
    limits: { maxSteps },
  }).result;
  const lost = record.stop_reason === 'max_steps';
  if (!lost && record.status !== 'success')
    throw new Error(`${entry.q}: ${record.status} ${record.final_answer}`);
  return { cap: record.limits.maxSteps, used: record.model_steps, lost };
}

const avg = (/** @type {number[]} */ xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (/** @type {number} */ n) => n.toFixed(2);

async function main() {
  const detail = process.argv.includes('--detail');
  const all = [...CORPUS, ...HELD_OUT];
  const heldOut = new Set(HELD_OUT);
  const needed = all.map((e) => e.lookups.length + 1);
  const zh = all.filter((e) => /[\u4e00-\u9fff]/.test(e.q)).length;
  const lines = [
    `Queries: ${all.length} (${zh} Chinese, ${all.length - zh} English; ${HELD_OUT.length} held out from tuning); ` +
      `model steps a good run needs: ${Math.min(...needed)}–${Math.max(...needed)}, average ${fmt(avg(needed))}.`,
    '',
    '| step limit | model | steps reserved (avg cap) | steps used (avg) | answers lost to the cap (held-out) |',
    '| --- | --- | ---: | ---: | ---: |',
  ];
  for (const wanders of [false, true]) {
    for (const policy of POLICIES) {
      const results = [];
      for (const entry of all)
        results.push({ ...(await runOne(entry, policy.limit(entry.q), wanders)), entry });
      const lost = results.filter((r) => r.lost).length;
      const lostHeldOut = results.filter((r) => r.lost && heldOut.has(r.entry)).length;
      lines.push(
        `| ${policy.name} | ${wanders ? 'wandering' : 'focused'} | ${fmt(avg(results.map((r) => r.cap)))} | ` +
          `${fmt(avg(results.map((r) => r.used)))} | ${lost} of ${results.length} (${lostHeldOut} of ${HELD_OUT.length}) |`,
      );
    }
  }
  if (detail) {
    lines.push(
      '',
      '| query | steps needed | `auto` | seed formula | why (`auto`) |',
      '| --- | ---: | ---: | ---: | --- |',
    );
    for (const entry of all) {
      const auto = autoMaxSteps(entry.q);
      const need = entry.lookups.length + 1;
      const mark = auto.chosen < need ? ' ✗' : '';
      lines.push(
        `| ${heldOut.has(entry) ? '(held out) ' : ''}${entry.q} | ${need} | ${auto.chosen}${mark} | ${seedFormula(entry.q)} | ${auto.reason.replaceAll('|', '/')} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
