import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { runAgent } from 'reins';
import { kitchenModel } from '../src/cli/start.js';
import { createKitchenServer } from '../src/server/kitchen-server.js';
import { describeEachBackend } from './harness.js';

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

describeEachBackend('the kitchen server with the composed stack', (harness) => {
  it('answers through the stack, says the route in the record, and /metrics compares the rollout arms and reports the cache', async () => {
    const h = harness();
    const text = JSON.stringify({ thought: 't', final: '冰箱里有鸡蛋。' });
    const openai = await fake(200, {
      choices: [{ message: { role: 'assistant', content: text } }],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    });
    const kitchen = await kitchenModel({
      REINS_MODEL: 'openai:stable',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      REINS_MODEL_CANDIDATE: 'openai:candidate',
      REINS_ROLLOUT_PERCENT: '0',
    });
    const server = createKitchenServer({
      services: h.services,
      model: kitchen.model,
      nutrition: () => Promise.resolve(null),
      logger: pino({ level: 'silent' }),
      ...kitchen.serverOptions,
    });
    try {
      const token = await h.login('xiaojia');
      const response = await server.app.request('/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ agent: 'kitchen', input: '冰箱里有什么？' }),
      });
      const body = (await response.json()) as {
        record: { model_stack?: string; steps: { detail: { route?: string } }[] };
      };
      expect(body.record.model_stack).toContain('rollout openai:candidate to 0% of users');
      expect(body.record.steps[0]?.detail.route).toBe('rollout stable');
      await new Promise((resolve) => setTimeout(resolve, 50)); // the rollout sees the run's last events
      const metrics = await (await server.app.request('/metrics')).text();
      expect(metrics).toContain('reins_rollout_runs{rollout="model",arm="stable"} 1');
      expect(metrics).toContain('reins_rollout_runs{rollout="model",arm="candidate"} 0');
      // The kitchen's steps offer tools that change things: the cache skips them.
      expect(metrics).toContain('reins_reasoning_cache_lookups{cache="model",outcome="skip"} 1');
      expect(metrics).toContain('reins_reasoning_cache_hit_rate{cache="model"} 0');
    } finally {
      await server.close();
      await kitchen.close();
    }
  });
});
