import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { parseCli } from '../src/cli/args.js';
import { writeApprovedTools } from '../src/drift/approved-file.js';
import type { ToolDefinitionSnapshot } from '../src/drift/definition.js';

async function cliWith(env: Record<string, string>, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) }, env);
  return { code, out, err };
}

describe('CLI: the approved file and numeric options', () => {
  // Contract: docs/runtime.md "The command line": "with the settings printed secrets masked";
  // choose-model.ts:18 "A line for stderr: which model and why, secrets masked". A password in
  // OPENAI_BASE_URL's userinfo (a gateway's basic auth) is a secret.
  it('does not print credentials embedded in OPENAI_BASE_URL', async () => {
    const { err, out } = await cliWith(
      {
        REINS_MODEL: 'openai:gpt-test',
        OPENAI_BASE_URL: 'http://gateway-user:TOPSECRET-PASSWORD@127.0.0.1:9/v1',
        REINS_MODEL_RETRIES: '0',
        REINS_REASONING_CACHE: 'off',
      },
      'run',
      '-q',
      'hi',
      '--deadline-ms',
      '60000',
    );
    expect(err + out).not.toContain('TOPSECRET-PASSWORD');
  });

  // Contract: approved-file.ts:82 "Writes the approved set (atomically: a temporary file renamed)"
  // and the brief: an approval file must not be corrupted by concurrent writes. Two approvals
  // racing in one process share the temporary name `${path}.${pid}.tmp`.
  it('two concurrent writeApprovedTools to the same file both succeed and leave one whole set', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'reins-review-approved-')), 'tools.approved.json');
    const set = (tag: string, n: number): ToolDefinitionSnapshot[] =>
      Array.from({ length: n }, (_, i) => ({
        name: `tool_${tag}_${i}`,
        source: 'app',
        description: `${tag} `.repeat(2_000),
        fingerprint: `${tag}${i}`,
        readOnly: true,
      })) as unknown as ToolDefinitionSnapshot[];
    const results = await Promise.allSettled([
      writeApprovedTools(file, set('a', 200)),
      writeApprovedTools(file, set('b', 3)),
    ]);
    const why = results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'));
    expect(why).toEqual(['ok', 'ok']);
    const text = readFileSync(file, 'utf8');
    expect(() => JSON.parse(text)).not.toThrow();
  });

  // Contract: args.ts:47 / USAGE "--max-steps N" and "--deadline-ms N", positiveInt (args.ts:146)
  // "must be a positive integer"; docs/runtime.md: "2 bad command line (INVALID_PARAMETER)".
  // Number() reads hex, binary, exponent and whitespace-padded text, so `--max-steps 0x10`
  // silently runs with 16 steps and `--deadline-ms 1e3` with 1000 ms.
  it('refuses --max-steps / --deadline-ms that are not plain decimal integers', () => {
    const accepted: string[] = [];
    for (const value of ['0x10', '1e1', '0b11']) {
      try {
        const c = parseCli(['run', '-q', 'x', '--max-steps', value]);
        accepted.push(`--max-steps ${JSON.stringify(value)} -> ${(c as { maxSteps: number }).maxSteps}`);
      } catch {
        // refused: as it should be
      }
    }
    try {
      const c = parseCli(['run', '-q', 'x', '--deadline-ms', '6e4']);
      accepted.push(`--deadline-ms "6e4" -> ${(c as { deadlineMs: number }).deadlineMs}`);
    } catch {
      // refused
    }
    expect(accepted).toEqual([]);
  });

  // Contract: docs/runtime.md "Tool definition drift": "Exit status ... 2 for a bad command line,
  // module or file"; tools-command.ts:27-29 "2: a module or file that cannot be read". An
  // --approved path that cannot be written (its directory does not exist) makes
  // writeApprovedTools (tools-command.ts:69) reject, and main() rejects instead of returning 2:
  // the bin prints an unhandled-rejection stack trace and exits 1 ("drift").
  it('tools approve to an unwritable --approved file exits 2 with a message, not a crash', async () => {
    const file = join(
      mkdtempSync(join(tmpdir(), 'reins-review-approved-')),
      'no-such-dir',
      'tools.approved.json',
    );
    const outcome = await cliWith({}, 'tools', 'approve', '--approved', file).then(
      (r) => r,
      (thrown: unknown) => ({ code: 'threw', out: '', err: String(thrown) }),
    );
    expect(outcome.code).toBe(2);
  });
});
