import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 17 item 4: `import('reins')` costs at most 150 ms over Node's own start, and zod was
// about half of it. A fresh `node` imports the sources (what the tests run) and reports every
// module it resolved; the lazy parts are then loaded, to show the report sees packages at all.

const HOOKS = pathToFileURL(new URL('./support/source-module-hooks.mjs', import.meta.url).pathname).href;
const ENTRY = pathToFileURL(new URL('../src/index.ts', import.meta.url).pathname).href;

const CHILD = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const resolved = [];
let marker;
port1.on('message', (url) => { resolved.push(url); if (url === marker?.url) marker.done(); });
register(${JSON.stringify(HOOKS)}, { data: { port: port2 }, transferList: [port2] });
// The hooks post from their own thread: resolving a marker, and waiting for its message,
// makes sure every earlier message has arrived.
const settled = async (name) => {
  const url = 'data:text/javascript,' + encodeURIComponent('// ' + name);
  await new Promise((done) => { marker = { url, done }; import(url); });
  return resolved.splice(0).filter((u) => u.startsWith('file:'));
};
const reins = await import(${JSON.stringify(ENTRY)});
const atImport = await settled('import');
await reins.loadLazyParts();
const afterLoad = await settled('loadLazyParts');
process.stdout.write(JSON.stringify({ atImport, afterLoad }));
port1.close();
`;

/** The package of a resolved file (`zod`, `@scope/name`), or undefined for reins' own files. */
function packageOf(url: string): string | undefined {
  return /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
}

describe("import('reins') loads no zod, nor any other package (issue 17 item 4)", { timeout: 60_000 }, () => {
  it('a fresh process resolves only reins files at import; zod and the other lazy parts come with loadLazyParts()', () => {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.stderr).not.toMatch(/Error/);
    const { atImport, afterLoad } = JSON.parse(child.stdout) as { atImport: string[]; afterLoad: string[] };
    expect(atImport.length).toBeGreaterThan(50); // reins' own modules
    expect(atImport.filter((url) => !url.includes('/packages/reins/src/'))).toEqual([]);
    const loadedLater = new Set(afterLoad.map(packageOf));
    expect(['zod', 'cockatiel', 'json5', 'jsonrepair'].filter((name) => !loadedLater.has(name))).toEqual([]);
  });
});
