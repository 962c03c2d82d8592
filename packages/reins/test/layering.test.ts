import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module reachable from `entry` by static imports, with the bare specifiers it uses. */
function reachable(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? '';
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else external.add(spec);
    }
  };
  visit(join(src, entry));
  return { files, external };
}

describe('layering', () => {
  it('the root entry imports nothing Node-only and only its declared libraries', () => {
    const { files, external } = reachable('index.ts');
    expect([...external].sort()).toEqual(['json5', 'jsonrepair', 'zod']);
    expect([...files].some((f) => f.includes('/cli/') || f.includes('/node/'))).toBe(false);
  });

  it('the testing entry is web-standard too', () => {
    expect([...reachable('testing.ts').external].every((s) => !s.startsWith('node:'))).toBe(true);
  });
});
