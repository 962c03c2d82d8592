import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const NODE_GLOBALS = /\b(?:process\.|Buffer\b|require\(|__dirname|__filename|setImmediate\()/;

/** Every module reachable from `entry` (imports, re-exports, dynamic imports, side-effect imports). */
function reachable(entry: string): { files: Map<string, string>; external: Set<string> } {
  const files = new Map<string, string>();
  const external = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    const text = readFileSync(file, 'utf8');
    files.set(file, text);
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else external.add(spec);
    }
  };
  visit(join(src, entry));
  return { files, external };
}

describe('layering', () => {
  it('the root entry imports only its declared libraries and nothing Node-only', () => {
    const { files, external } = reachable('index.ts');
    expect([...external].sort()).toEqual(['cockatiel', 'json5', 'jsonrepair', 'zod']);
    for (const [file, text] of files) {
      expect({ file, nodeOnly: /\/(cli|node)\//.test(file) }).toEqual({ file, nodeOnly: false });
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''); // comments may mention anything
      expect({ file, usesNodeGlobal: NODE_GLOBALS.test(code) }).toEqual({ file, usesNodeGlobal: false });
    }
  });

  it('the testing entry is web-standard too', () => {
    const { external } = reachable('testing.ts');
    expect(
      [...external].filter(
        (s) => s.startsWith('node:') || !['zod', 'json5', 'jsonrepair', 'cockatiel'].includes(s),
      ),
    ).toEqual([]);
  });

  it('the check sees side-effect and dynamic imports', () => {
    const found = ts.preProcessFile("import 'node:fs';\nconst m = await import('node:os');", true, true);
    expect(found.importedFiles.map((f) => f.fileName)).toEqual(['node:fs', 'node:os']);
  });
});
