import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chosenValue, main, type CliIo } from '../../src/cli/main.js';
import { final } from '../helpers.js';
import { plan, step } from './plan-tools.js';

async function cli(argv: string[], answers?: string[]) {
  let out = '';
  let err = '';
  const asked: string[] = [];
  const io: CliIo = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    ask:
      answers === undefined
        ? undefined
        : (prompt) => {
            asked.push(prompt);
            return Promise.resolve(answers.shift());
          },
  };
  const code = await main(argv, io, {});
  return { code, out, err, asked };
}

function scriptFile(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'reins-plan-cli-')), 'replies.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('reins run --agent plan', () => {
  it('plans and answers offline with the demo model: the plan, the steps side by side, the answer', async () => {
    const { code, out } = await cli([
      'run',
      '--agent',
      'plan',
      '-q',
      'weather in Beijing and weather in Harbin, and 2+3*4',
    ]);
    expect(code).toBe(0);
    expect(out).toContain('(DEMO: no model configured');
    expect(out).toMatch(
      /\[1\] Plan v1 \(initial\) valid\n\s+s1: get_weather \{"city":"Beijing"\}\n\s+s2: get_weather \{"city":"Harbin"\}\n\s+s3: calculate/,
    );
    // Independent steps: all three start before the first result is printed.
    expect(out).toMatch(/Act\s+s1:.*\n.*Act\s+s2:.*\n.*Act\s+s3:/);
    expect(out).toMatch(/Answer: \[Demo answer.*"temperature":-12/);
    expect(out).toMatch(/done: success · 2 model step/);
  });

  it('a question without a terminal is printed and the exit status is 5', async () => {
    const { code, out } = await cli(['run', '--agent', 'plan', '-q', 'hello there']);
    expect(code).toBe(5);
    expect(out).toMatch(/Question: I have no action for "hello there"/);
    expect(out).toMatch(/done: awaiting_input/);
  });

  it('a typed number picks that candidate; anything else is the answer as typed', () => {
    const question = {
      questionId: 'q',
      question: 'Which?',
      candidates: [
        { value: 'BJXH001', label: '北京协和医院' },
        { value: 'WHXH001', label: '武汉协和医院' },
      ],
      expiresAt: 0,
    };
    expect(chosenValue(' 2 ', question)).toBe('WHXH001');
    expect(chosenValue('3', question)).toBe('3');
    expect(chosenValue('FZXH001', question)).toBe('FZXH001');
  });

  it('in a terminal the answer to a plan question resumes the run', async () => {
    const file = scriptFile(
      [
        JSON.stringify({
          reasoning: {
            current_goal: 'weather',
            known_facts: [],
            missing_info: ['the city'],
            next_action: 'ask',
          },
        }),
        plan([step('s1', 'get_weather', { city: 'Harbin' })]),
        final('Harbin: -12 °C'),
      ].map((reply) => JSON.stringify(reply)),
    );
    const { code, out, asked } = await cli(
      ['run', '--agent', 'plan', '-m', `script:${file}`, '-q', 'weather?'],
      ['Harbin'],
    );
    expect(asked).toHaveLength(1);
    expect(out).toMatch(/Question: To go on I need: the city/);
    expect(out).toMatch(/Plan v1 \(clarified\) valid/);
    expect(out).toMatch(/Answer: Harbin: -12 °C/);
    expect(code).toBe(0);
  });

  it('refuses an unknown agent kind', async () => {
    const { code, err } = await cli(['run', '--agent', 'graph', '-q', 'x']);
    expect(code).toBe(2);
    expect(err).toContain('--agent must be react or plan');
  });
});
