// Proves the limit tests can fail: removes each limit from the source in turn, runs the
// tests that guard it, and expects a failure. Restores the file afterwards, always.
// Usage: node scripts/mutation-check.mjs   (takes ~30 s)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const loop = 'packages/reins/src/loop/';
const MUTANTS = [
  [
    'max steps removed',
    `${loop}run-loop.ts`,
    'const finalStep = step >= limits.maxSteps || forcedFinal;',
    'const finalStep = forcedFinal;',
  ],
  [
    'last step still offers tools',
    `${loop}run-loop.ts`,
    'tools: finalStep ? [] : ctx.specs,',
    'tools: ctx.specs,',
  ],
  [
    'repeat guard removed',
    `${loop}resolve-turn.ts`,
    'const firstStep = state.actions.get(key);',
    'const firstStep = undefined as number | undefined;',
  ],
  [
    'repeat does not force the final step',
    `${loop}run-loop.ts`,
    'forcedFinal = true;',
    'forcedFinal = false;',
  ],
  [
    'deadline removed',
    `${loop}run-agent.ts`,
    'controller.abort(DEADLINE), limits.deadlineMs',
    'undefined, limits.deadlineMs',
  ],
  [
    'tool timeout removed',
    `${loop}execute-action.ts`,
    '() => stop(TOOL_TIMEOUT), timeoutMs',
    '() => undefined, timeoutMs',
  ],
  [
    'external signal ignored',
    `${loop}run-agent.ts`,
    "else external?.addEventListener('abort', cancel, { once: true });",
    '',
  ],
  [
    'input not validated',
    `${loop}execute-action.ts`,
    'const input = tool.input.safeParse(request.input);',
    'const input = { success: true as const, data: request.input, error: undefined as never };',
  ],
  [
    'output schema not checked',
    `${loop}execute-action.ts`,
    'const checkedOutput = tool.output.safeParse(output);',
    'const checkedOutput = { success: true as const, data: output, error: undefined as never };',
  ],
  [
    'business check skipped',
    `${loop}execute-action.ts`,
    'if (tool.check === undefined) return true;',
    'return true;',
  ],
  [
    'no sanitizer',
    `${loop}execute-action.ts`,
    "return observe('ok', { result: maskPii(checkedOutput.data) });",
    "return observe('ok', { result: checkedOutput.data });",
  ],
  ['raw text dropped', `${loop}resolve-turn.ts`, 'text: parse.raw.trim() || EMPTY_REPLY_TEXT', "text: ''"],
];

let survived = 0;
for (const [name, file, from, to] of MUTANTS) {
  const original = readFileSync(file, 'utf8');
  if (!original.includes(from)) throw new Error(`mutant "${name}": pattern not found in ${file}`);
  writeFileSync(file, original.replace(from, to));
  let failed = false;
  try {
    execFileSync('npx', ['vitest', 'run', 'packages/reins/test/run-agent', '--reporter=dot'], {
      stdio: 'pipe',
    });
  } catch {
    failed = true;
  } finally {
    writeFileSync(file, original);
  }
  console.log(`${failed ? 'killed  ' : 'SURVIVED'}  ${name}`);
  if (!failed) survived++;
}
console.log(survived === 0 ? 'every mutant was killed' : `${survived} mutant(s) survived`);
process.exitCode = survived === 0 ? 0 : 1;
