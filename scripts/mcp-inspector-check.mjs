// Interop: the official MCP Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3) drives
// the Reins MCP server bridge (packages/mcp/test/fixtures/tool-server.mjs over stdio): it lists
// the tools and calls one, and a call with a model-invented key comes back as isError with
// INVALID_PARAMETER. The CLI exits 0 even on isError, so its JSON output is checked here.
// It must run from a folder whose parent has a package.json (made here). Exits 1 on a mismatch.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const root = fileURLToPath(new URL('..', import.meta.url));
const prefix = process.env.MCP_INSPECTOR_PREFIX ?? mkdtempSync(join(tmpdir(), 'reins-mcp-inspector-'));
writeFileSync(join(prefix, 'package.json'), '{"name":"inspector-run","private":true}\n');
const cwd = join(prefix, 'run');
mkdirSync(cwd, { recursive: true });
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
    '@modelcontextprotocol/inspector-cli@1.0.3',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packages/mcp/tsconfig.build.json'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);

const cli = join(prefix, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
const server = ['node', join(root, 'packages/mcp/test/fixtures/tool-server.mjs'), 'stdio'];
function inspect(...args) {
  const out = execFileSync(process.execPath, [cli, ...server, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.slice(out.indexOf('{')));
}

const listed = inspect('--method', 'tools/list');
assert.deepEqual(listed.tools.map((t) => t.name).sort(), ['add_note', 'lookup_pantry', 'slow_count']);
const lookup = listed.tools.find((t) => t.name === 'lookup_pantry');
assert.equal(lookup.inputSchema.additionalProperties, false);
assert.equal(lookup.annotations.readOnlyHint, true);

const called = inspect('--method', 'tools/call', '--tool-name', 'lookup_pantry', '--tool-arg', 'item=salt');
assert.notEqual(called.isError, true);
assert.deepEqual(called.structuredContent, { item: 'salt', quantity: 4, owner: 'stdio-owner', runs: 1 });

const refused = inspect(
  '--method',
  'tools/call',
  '--tool-name',
  'lookup_pantry',
  '--tool-arg',
  'item=salt',
  '--tool-arg',
  'space_id=x',
);
assert.equal(refused.isError, true);
assert.equal(JSON.parse(refused.content[0].text).error.code, 'INVALID_PARAMETER');
console.log(
  'inspector-cli 1.0.3 ↔ Reins MCP server bridge (stdio): tools/list, tools/call, refused stray key — all 3 checks ok',
);
