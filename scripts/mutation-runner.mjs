// Runs mutants: for each [name, file, from, to, tests?], replaces the first `from` in `file`
// with `to`, runs vitest on `tests` (default `defaultTests`), expects a failure, and restores
// the file — also on Ctrl-C or a kill by CI's timeout. Shared by every mutation check.
//
// Speed: `<check>.focus.json` beside the check script may name, per mutant, the test files
// known to kill it; they run first, and only a mutant they do not kill runs the full default
// tests before it counts as survived. The map is an optimization, never the verdict.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** @param {[string, string, string, string, string[]?][]} mutants @param {string[]} defaultTests */
export function runMutants(mutants, defaultTests) {
  // Preflight: every pattern must be in its file before anything is touched.
  for (const [name, file, from] of mutants) {
    if (!readFileSync(file, 'utf8').includes(from))
      throw new Error(`mutant "${name}": pattern not found in ${file}`);
  }
  let current; // [file, original] while a mutant is applied
  const restore = () => {
    if (current !== undefined) writeFileSync(current[0], current[1]);
    current = undefined;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      restore();
      process.exit(130);
    });
  }
  // The mutants run without CI=true so they do not overwrite the main leg's test report.
  const env = { ...process.env, CI: '' };
  let survived = 0;
  const focus = focusMap();
  const fails = (tests) => {
    try {
      execFileSync('npx', ['vitest', 'run', ...tests, '--reporter=dot', '--bail=1'], { stdio: 'pipe', env });
      return false;
    } catch {
      return true;
    }
  };
  for (const [name, file, from, to, tests = defaultTests] of mutants) {
    const original = readFileSync(file, 'utf8');
    current = [file, original];
    writeFileSync(file, original.replace(from, to));
    let failed;
    try {
      const known = focus[name];
      failed = (known !== undefined && fails(known)) || fails(tests);
    } finally {
      restore();
    }
    console.log(`${failed ? 'killed  ' : 'SURVIVED'}  ${name}`);
    if (!failed) survived++;
  }
  console.log(
    survived === 0 ? `all ${mutants.length} mutants were killed` : `${survived} mutant(s) survived`,
  );
  process.exitCode = survived === 0 ? 0 : 1;
}

/** The focus map of the running check script (`scripts/x.mjs` → `scripts/x.focus.json`), or none. */
function focusMap() {
  const path = process.argv[1]?.replace(/\.mjs$/, '.focus.json');
  if (path === undefined || !existsSync(path)) return {};
  return JSON.parse(readFileSync(path, 'utf8'));
}
