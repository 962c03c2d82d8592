import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { final } from './helpers.js';
import { conversationContext } from 'reins';

async function cli(env: Record<string, string>, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) }, env);
  return { code, out, err };
}

describe('reins run --conversation', () => {
  it('remembers the turns across invocations and shows them to the model of the next turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reins-conv-'));
    const env = { REINS_DATA_DIR: dir };
    const first = await cli(env, 'run', '-q', 'weather in Beijing?', '--conversation', 'trip-1');
    expect(first.code).toBe(0);
    expect(first.err).toContain('conversation trip-1: 1 turn(s)');
    const script = join(dir, 'replies.jsonl');
    writeFileSync(script, `${JSON.stringify(final('and tomorrow: rain'))}\n`);
    const second = await cli(
      env,
      'run',
      '-q',
      'and tomorrow?',
      '--conversation',
      'trip-1',
      '-m',
      `script:${script}`,
      '--json',
    );
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain('conversation trip-1: 2 turn(s)');
    const stored = JSON.parse(readFileSync(join(dir, 'conversations', 'trip-1.json'), 'utf8')) as {
      turns: { query: string; answer: string; status: string }[];
    };
    expect(stored.turns.map((t) => [t.query, t.status])).toEqual([
      ['weather in Beijing?', 'success'],
      ['and tomorrow?', 'success'],
    ]);
    expect(stored.turns[1]?.answer).toBe('and tomorrow: rain');
    // What a third turn is shown: both earlier turns, in the context format the server uses too.
    const context = conversationContext(
      stored.turns.map((t, i) => ({ ...t, runId: `r${i}`, at: i, status: 'success' as const })),
    );
    expect(context).toContain('{"user":"and tomorrow?","answer":"and tomorrow: rain"}');
  });

  it('refuses an id that is not a plain name (exit 2)', async () => {
    const { code, err } = await cli({}, 'run', '-q', 'x', '--conversation', '../../etc/passwd');
    expect(code).toBe(2);
    expect(err).toContain('INVALID_PARAMETER');
  });
});
