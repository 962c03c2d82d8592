import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A provider wire server on 127.0.0.1 that answers every request with `status` and `body`. */
async function fake(status: number, body: unknown): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('reins run with the composed model stack', () => {
  it('a failing OpenAI primary hands the step to the Anthropic fallback at ANTHROPIC_BASE_URL; the record says why', async () => {
    const primary = await fake(503, { error: { message: 'overloaded' } });
    const content = [{ type: 'text', text: JSON.stringify({ thought: 't', final: 'from the fallback' }) }];
    const fallback = await fake(200, { content, usage: { input_tokens: 3, output_tokens: 2 } });
    let out = '';
    let err = '';
    const code = await main(
      ['run', '-q', 'hi', '--json'],
      { out: (t) => void (out += t), err: (t) => void (err += t) },
      {
        REINS_MODEL: 'openai:primary',
        OPENAI_BASE_URL: `${primary.url}/v1`,
        REINS_MODEL_FALLBACK: 'anthropic:backup',
        ANTHROPIC_API_KEY: 'sk-ant-test-key',
        ANTHROPIC_BASE_URL: fallback.url,
        REINS_MODEL_RETRIES: '0',
      },
    );
    expect(code).toBe(0);
    const record = JSON.parse(out) as {
      final_answer: string;
      model_stack?: string;
      steps: { phase: string; detail: { route?: string; model?: string } }[];
    };
    expect(record.final_answer).toBe('from the fallback');
    expect(record.model_stack).toContain('openai:primary → anthropic:backup');
    expect(record.steps[0]?.detail).toMatchObject({
      model: 'anthropic:backup',
      route: 'fallback after SERVICE_UNAVAILABLE from openai-compatible:primary',
    });
    expect(primary.hits).toEqual(['/v1/chat/completions']);
    expect(fallback.hits).toEqual(['/v1/messages']);
    expect(err).toContain('composed: retries 0 per model');
    expect(err).not.toContain('sk-ant-test-key');
  });

  it('the live trace says which model answered each step and why', async () => {
    const primary = await fake(503, { error: { message: 'overloaded' } });
    const content = [{ type: 'text', text: JSON.stringify({ thought: 't', final: 'ok' }) }];
    const fallback = await fake(200, { content, usage: { input_tokens: 3, output_tokens: 2 } });
    let out = '';
    const code = await main(
      ['run', '-q', 'hi'],
      { out: (t) => void (out += t), err: () => undefined },
      {
        REINS_MODEL: 'openai:primary',
        OPENAI_BASE_URL: `${primary.url}/v1`,
        REINS_MODEL_FALLBACK: 'anthropic:backup',
        ANTHROPIC_API_KEY: 'k',
        ANTHROPIC_BASE_URL: fallback.url,
        REINS_MODEL_RETRIES: '0',
      },
    );
    expect(code).toBe(0);
    expect(out).toMatch(
      /\[1\] Reason .*anthropic:backup: fallback after SERVICE_UNAVAILABLE from openai-compatible:primary/,
    );
  });

  it('a malformed stack setting is INVALID_PARAMETER, naming it', async () => {
    let err = '';
    const code = await main(
      ['run', '-q', 'hi'],
      { out: () => undefined, err: (t) => void (err += t) },
      { REINS_MODEL: 'openai:m', OPENAI_API_KEY: 'sk-x', REINS_TEMPERATURE: '9' },
    );
    expect(code).toBe(2);
    expect(err).toContain('INVALID_PARAMETER');
    expect(err).toContain('REINS_TEMPERATURE');
  });
});
