import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError, createToolPolicies, defineTool, executeAction, parseDecision } from 'reins';
import { actEnv } from './helpers.js';

// Order matters in this file: module state is per test file, and nothing has loaded the lazy
// parts before the first tests (no run has started yet).

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const LAZY = ['cockatiel', 'json5', 'jsonrepair', 'zod'];

/** The packages reached from `entry` by static imports (what `import('reins')` evaluates). */
function staticExternals(entry: string): Set<string> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      let spec: string | undefined;
      if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly !== true) {
        spec = (statement.moduleSpecifier as ts.StringLiteral).text;
      } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier) {
        spec = (statement.moduleSpecifier as ts.StringLiteral).text;
      }
      if (spec === undefined) continue;
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else external.add(spec);
    }
  };
  visit(join(src, entry));
  return external;
}

describe('import cost: the repair parsers, cockatiel and zod load on first need', () => {
  it('importing reins does not load jsonrepair, json5, cockatiel or zod (static imports only)', () => {
    const external = staticExternals('index.ts');
    expect(LAZY.filter((name) => external.has(name))).toEqual([]);
    expect(staticExternals('node/index.ts').has('node:fs/promises')).toBe(true); // the check sees packages at all
  });

  it('a direct parse before they are loaded says so (repairPending), and parses exactly once they are', async () => {
    const raw = "{'thought': 'single quotes', 'final': 'ok'}";
    const before = parseDecision(raw);
    expect(before).toMatchObject({ ok: false, repairPending: true });
    expect(parseDecision('{"final": "clean JSON needs no repair"}')).toMatchObject({
      ok: true,
      via: 'clean',
    });
    const { loadRepairParsers } = await import('reins');
    await loadRepairParsers();
    expect(parseDecision(raw)).toMatchObject({
      ok: true,
      via: 'repaired',
      value: { kind: 'final', final: 'ok' },
    });
  });
});

describe('cockatiel on first need: a breaker counts failures from the first call', () => {
  it('three direct failures open the breaker before cockatiel was loaded; the next call is refused', async () => {
    let calls = 0;
    const tool = defineTool({
      name: 'down',
      description: 'always down',
      input: z.object({}),
      output: z.object({}),
      readOnly: true,
      policy: { retries: 0 },
      run: () => {
        calls++;
        throw new ToolError('SERVICE_UNAVAILABLE', 'down');
      },
    });
    const policies = createToolPolicies();
    const env = actEnv([tool], policies);
    for (let i = 0; i < 3; i++) {
      const failed = await executeAction({ actId: `a${i}`, tool: 'down', input: {} }, env);
      expect(failed.error?.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect(policies.guardFor(tool).breakerState).toBe('open');
    const refused = await executeAction({ actId: 'a3', tool: 'down', input: {} }, env);
    expect(refused).toMatchObject({ status: 'rejected', error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(refused.error?.message).toContain('circuit breaker is open');
    expect(calls).toBe(3);
  });
});
