import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { act, final } from './helpers.js';

async function cliWith(env: Record<string, string>, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) }, env);
  return { code, out, err };
}
const cli = (...argv: string[]) => cliWith({}, ...argv);

function scriptFile(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'reins-cli-')), 'replies.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('reins run', () => {
  it('answers with the demo model offline, printing Reason / Act / Observe live and the demo label', async () => {
    const { code, out } = await cli('run', '--query', "What's the weather in Beijing?");
    expect(code).toBe(0);
    expect(out).toContain('(DEMO: no model configured');
    expect(out).toMatch(/\[1\] Reason .*\n\s+→ get_weather \{"city":"Beijing"\}/);
    expect(out).toMatch(/\[1\] Act\s+get_weather/);
    expect(out).toMatch(/\[1\] Observe ok .*"temperature":22/);
    expect(out).toMatch(/Answer: \[Demo answer/);
    expect(out).toMatch(/done: success/);
  });

  it('--json prints the run record', async () => {
    const { code, out } = await cli('run', '-q', 'what is 6*7', '--json');
    expect(code).toBe(0);
    const record = JSON.parse(out) as { status: string; final_answer: string; steps: { phase: string }[] };
    expect(record.status).toBe('success');
    expect(record.final_answer).toContain('"value":42');
    expect(record.steps.map((s) => s.phase)).toEqual(['reason', 'act', 'observe', 'reason']);
  });

  it('replays a script file and honours --max-steps (exit 3 when a limit stops the run)', async () => {
    const path = scriptFile([
      JSON.stringify(act('calculate', { expression: '1+1' })),
      JSON.stringify(act('calculate', { expression: '2+2' })),
      JSON.stringify(final('never reached')),
    ]);
    const { code, out } = await cli('run', '-q', 'sum', '--model', `script:${path}`, '--max-steps', '2');
    expect(code).toBe(3);
    expect(out).toContain('Notice: Stopped: the step limit (2 model steps)');
    expect(out).toContain('no tools');
  });

  it('--max-steps auto chooses the limit from the question and says why', async () => {
    const { code, out } = await cli(
      'run',
      '-q',
      'what is 6*7? and also 2+2?',
      '--max-steps',
      'auto',
      '--json',
    );
    expect(code).toBe(0);
    const record = JSON.parse(out) as {
      limits: { maxSteps: number };
      max_steps_auto: { chosen: number; reason: string };
    };
    expect(record.limits.maxSteps).toBe(5);
    expect(record.max_steps_auto.chosen).toBe(5);
    expect(record.max_steps_auto.reason).toContain('also');
    const live = await cli('run', '-q', 'hello there', '--max-steps', 'auto');
    expect(live.out).toContain('max 3 steps (auto: no ask');
    const cleaned = await cli('run', '-q', 'what is {{6*7}}', '--max-steps', '2');
    expect(cleaned.out).toContain('input cleaned: {{ }}');
  });

  it('accepts the {"text", "delayMs"} and {"error"} script lines', async () => {
    const path = scriptFile([JSON.stringify({ text: final('hi'), delayMs: 5 })]);
    expect((await cli('run', '-q', 'x', '-m', `script:${path}`)).out).toContain('Answer: hi');
    const failing = scriptFile([JSON.stringify({ error: 'timeout' })]);
    const result = await cli('run', '-q', 'x', '-m', `script:${failing}`);
    expect(result.code).toBe(1);
    expect(result.out).toContain('Error MODEL_FAILED');
  });

  it('--help and -h print the usage and exit 0, alone or after run', async () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['run', '--help'], ['run', '-q', 'x', '-h'], []]) {
      const { code, out, err } = await cli(...argv);
      expect({ argv, code, err }).toEqual({ argv, code: 0, err: '' });
      expect(out).toContain('Usage: reins run --query');
    }
  });

  it('refuses bad command lines with INVALID_PARAMETER and exit 2', async () => {
    for (const argv of [
      ['run'],
      ['run', '-q', '  '],
      ['run', '-q', 'x', '--max-steps', '0'],
      ['run', '-q', 'x', '--bogus'],
      ['fly'],
      ['run', '-q', 'x', '--model', 'gpt-9'],
      ['run', '-q', 'x', '--deadline-ms', '1000'], // shorter than the example tools' timeouts × 1.5
    ]) {
      const { code, err } = await cli(...argv);
      expect({ argv, code }).toEqual({ argv, code: 2 });
      expect(err).toContain('INVALID_PARAMETER');
    }
  });

  it('reports the line of a broken script file', async () => {
    const path = scriptFile(['"ok"', '{not json']);
    await expect(cli('run', '-q', 'x', '-m', `script:${path}`)).resolves.toMatchObject({ code: 2 });
    expect((await cli('run', '-q', 'x', '-m', `script:${path}`)).err).toContain('line 2');
  });

  it('REINS_MODEL and --model openai:… run a real adapter (here against a local fake provider)', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const content = JSON.stringify({ thought: 't', final: 'from the provider' });
      res.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 3, completion_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const env = { REINS_MODEL: 'openai:local-model', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` };
      const { code, out, err } = await cliWith(env, 'run', '-q', 'hi');
      expect(code).toBe(0);
      expect(out).toContain('Answer: from the provider');
      expect(err).toContain('model openai-compatible:local-model');
    } finally {
      server.close();
    }
  });

  it('a provider without its key falls back to the demo model and says why', async () => {
    const { code, out, err } = await cliWith(
      {},
      'run',
      '-q',
      'weather in Beijing',
      '--model',
      'openai:gpt-4o-mini',
    );
    expect(code).toBe(0);
    expect(err).toContain('needs OPENAI_API_KEY');
    expect(out).toContain('[Demo answer');
  });

  it('an unknown provider is INVALID_PARAMETER', async () => {
    const { code, err } = await cliWith({ REINS_MODEL: 'cohere:command' }, 'run', '-q', 'x');
    expect(code).toBe(2);
    expect(err).toContain('INVALID_PARAMETER');
  });
});
