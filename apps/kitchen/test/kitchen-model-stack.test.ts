import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from 'reins';
import { kitchenModel } from '../src/cli/start.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function fake(status: number, body: unknown): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

describe('the kitchen model with a provider configured', () => {
  it('is the composed stack: a failing primary falls back, and the stack gives the server its metrics sources', async () => {
    const primary = await fake(500, { error: { message: 'down' } });
    const text = JSON.stringify({ thought: 't', final: '今晚做番茄炒蛋。' });
    const fallback = await fake(200, {
      content: [{ type: 'text', text }],
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    const kitchen = await kitchenModel({
      REINS_MODEL: 'openai:primary',
      OPENAI_BASE_URL: `${primary.url}/v1`,
      REINS_MODEL_FALLBACK: 'anthropic:backup',
      ANTHROPIC_API_KEY: 'sk-ant-kitchen',
      ANTHROPIC_BASE_URL: fallback.url,
      REINS_MODEL_RETRIES: '0',
      REINS_MODEL_CANDIDATE: 'openai:candidate',
      REINS_ROLLOUT_PERCENT: '0',
    });
    try {
      expect(kitchen.model.stack).toContain('openai:primary → anthropic:backup');
      expect(kitchen.reason).toContain('composed');
      expect(Object.keys(kitchen.serverOptions.rollouts ?? {})).toEqual(['model']);
      expect(Object.keys(kitchen.serverOptions.reasoningCaches ?? {})).toEqual(['model']);
      const record = await runAgent({ query: '今晚吃什么？', model: kitchen.model, tools: [] }).result;
      expect(record.final_answer).toBe('今晚做番茄炒蛋。');
      expect(record.steps[0]?.detail.route).toBe(
        'rollout stable; fallback after SERVICE_UNAVAILABLE from openai-compatible:primary',
      );
      expect([primary.hits(), fallback.hits()]).toEqual([1, 1]);
    } finally {
      await kitchen.close();
    }
  });
});
