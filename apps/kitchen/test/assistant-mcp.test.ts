import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectMcp, type McpBridge } from '@reins/mcp';
import type { AgentDefinition } from '@reins/server';
import { scriptModel } from 'reins/testing';
import { kitchenAgent } from '../src/assistant/agent.js';
import { mcpNutritionLookup } from '../src/assistant/mcp-nutrition.js';
import { act, actions, ask, call, final } from './assistant-helpers.js';
import { describeEachBackend } from './harness.js';

// `npm run nutrition-mcp -- --stdio` runs this file; spawned directly so that npm's banner
// never reaches the JSON-RPC pipe and signals reach the server itself.
const SERVER = fileURLToPath(new URL('../../nutrition-mcp/bin/nutrition-mcp.js', import.meta.url));

let bridge: McpBridge | undefined;
beforeAll(async () => {
  bridge = await connectMcp({
    name: 'nutrition',
    transport: { kind: 'stdio', command: process.execPath, args: [SERVER, '--stdio'] },
    prefix: 'nutrition_',
  });
}, 30_000);
afterAll(async () => {
  await bridge?.close();
});

describeEachBackend('kitchen assistant: nutrition over the MCP server (stdio child)', (harness) => {
  it('is an AgentDefinition for @reins/server', () => {
    const definition: AgentDefinition = kitchenAgent(harness().services, {
      model: scriptModel([]),
      nutrition: mcpNutritionLookup({ tools: () => [] }),
    });
    expect(definition.limits?.maxSteps).toBe(4);
  });

  it('looks foods up in IFCT 2017 and stamps mcp_exact; a food the table lacks is found: false', async () => {
    if (bridge === undefined) throw new Error('no bridge');
    expect(bridge.status().status).toBe('up');
    const nutrition = mcpNutritionLookup(bridge);
    const run = await ask(
      harness(),
      await harness().principal('xiaojia'),
      scriptModel([
        actions([call('nutrition_lookup', { food: '鸡蛋' }), call('nutrition_lookup', { food: '豆腐' })]),
        final('鸡蛋有数据，豆腐没有数据。'),
      ]),
      nutrition,
    );
    // The two lookups run side by side: take each by its food, not by the order they answered in.
    const egg = run.observations.find((o) => (o.result as { food?: string } | undefined)?.food === '鸡蛋')
      ?.result as {
      provenance: string;
      entry: { source: string; per100g: { energyKcal: number | null; proteinG: number | null } };
    };
    expect(egg.provenance).toBe('mcp_exact');
    expect(egg.entry.source).toBe('IFCT 2017');
    expect(egg.entry.per100g.energyKcal).toBeGreaterThan(100);
    expect(egg.entry.per100g.proteinG).toBeGreaterThan(10);
    const tofu = run.observations.find((o) => (o.result as { food?: string } | undefined)?.food === '豆腐');
    expect(tofu?.result).toMatchObject({ found: false, provenance: null });
  }, 30_000);

  it('a bridge without the tool (server down) is SERVICE_UNAVAILABLE, no numbers', async () => {
    const run = await ask(
      harness(),
      await harness().principal('laowang'),
      scriptModel([act('nutrition_lookup', { food: '鸡蛋' }), final('营养数据暂不可用')]),
      mcpNutritionLookup({ tools: () => [] }),
    );
    expect(run.observations[0]?.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(run.observations)).not.toContain('mcp_exact');
  });
});
