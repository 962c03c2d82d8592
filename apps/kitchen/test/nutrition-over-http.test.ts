import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type RunningHttpServer } from '@reins/nutrition-mcp';
import { readConfig } from '../src/config.js';
import { connectNutrition } from '../src/server/nutrition-bridge.js';

// NUTRITION_MCP_URL: one nutrition server over Streamable HTTP for every process, no stdio child.
let server: RunningHttpServer | undefined;
beforeAll(async () => {
  server = await startHttp({ port: 0 });
}, 30_000);
afterAll(async () => {
  await server?.close();
});

describe('the nutrition server over the network (NUTRITION_MCP_URL)', () => {
  it('looks up a food over Streamable HTTP; health says up', async () => {
    const url = readConfig({ NUTRITION_MCP_URL: `${server?.url}/mcp` }).nutritionMcpUrl;
    const nutrition = await connectNutrition({ url });
    try {
      const ctx = { principal: { id: 'u1' }, runId: 'r1', actId: 'a1', signal: new AbortController().signal };
      const egg = await nutrition.lookup('鸡蛋', ctx);
      expect(egg).toMatchObject({ matchedAlias: '鸡蛋', source: expect.stringContaining('IFCT') });
      expect(egg?.per100g.energyKcal).toBeGreaterThan(100);
      expect(await nutrition.health()).toMatchObject({ status: 'up' });
    } finally {
      await nutrition.close();
    }
  });

  it('NUTRITION_MCP_TOKEN is sent as a bearer token; without it a token-guarded server refuses', async () => {
    const token = 'kitchen-nutrition-token-0123456789';
    const guarded = await startHttp({ port: 0, token });
    try {
      const config = readConfig({ NUTRITION_MCP_URL: `${guarded.url}/mcp`, NUTRITION_MCP_TOKEN: token });
      expect(config.nutritionMcpToken).toBe(token);
      const ctx = { principal: { id: 'u1' }, runId: 'r1', actId: 'a1', signal: new AbortController().signal };
      const withToken = await connectNutrition({
        url: config.nutritionMcpUrl,
        token: config.nutritionMcpToken,
      });
      try {
        expect(await withToken.lookup('鸡蛋', ctx)).toMatchObject({ matchedAlias: '鸡蛋' });
        expect(await withToken.health()).toMatchObject({ status: 'up' });
      } finally {
        await withToken.close();
      }
      const without = await connectNutrition({ url: config.nutritionMcpUrl, reconnect: { maxAttempts: 1 } });
      try {
        expect(await without.health()).toMatchObject({ status: 'down' });
        await expect(without.lookup('鸡蛋', ctx)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      } finally {
        await without.close();
      }
    } finally {
      await guarded.close();
    }
  });

  it('a URL that is not http(s) fails at start, naming the variable', () => {
    expect(() => readConfig({ NUTRITION_MCP_URL: 'ftp://x/mcp' })).toThrow(
      /NUTRITION_MCP_URL must be an http\(s\) URL/,
    );
    expect(() => readConfig({ NUTRITION_MCP_URL: 'not a url' })).toThrow(/NUTRITION_MCP_URL/);
    expect(readConfig({}).nutritionMcpUrl).toBeUndefined();
  });
});
