import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const packages = resolve(here, '../..');

function importsUnder(dir: string): Set<string> {
  const found = new Set<string>();
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const { fileName } of ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles) {
          if (!fileName.startsWith('.'))
            found.add(
              fileName
                .split('/')
                .slice(0, fileName.startsWith('@') ? 2 : 1)
                .join('/'),
            );
        }
      }
    }
  };
  walk(dir);
  return found;
}

describe('layering', () => {
  it('the server imports only its declared dependencies (and node: built-ins)', () => {
    const pkg = JSON.parse(readFileSync(join(packages, 'server/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const used = [...importsUnder(join(packages, 'server/src'))].filter((s) => !s.startsWith('node:'));
    for (const name of used)
      expect({ name, declared: name in pkg.dependencies }).toEqual({ name, declared: true });
  });

  it('the core imports nothing from the server (dependencies point down)', () => {
    expect([...importsUnder(join(packages, 'reins/src'))].filter((s) => s.startsWith('@reins/'))).toEqual([]);
  });
});
