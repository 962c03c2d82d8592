import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const binPath = fileURLToPath(new URL('../../bin/nutrition-mcp.js', import.meta.url));

/**
 * The bin runs compiled code. Tests run against the sources, so rebuild first (incremental,
 * quick when nothing changed): a stale dist/ must not hide a bug from the process tests.
 */
export function buildApp(): void {
  execFileSync(
    process.execPath,
    [`${repoRoot}node_modules/typescript/bin/tsc`, '-b', `${repoRoot}apps/nutrition-mcp/tsconfig.build.json`],
    { cwd: repoRoot, stdio: 'inherit' },
  );
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
