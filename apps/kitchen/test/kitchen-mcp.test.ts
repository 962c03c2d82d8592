import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp, startMcpHttp, type McpBridge } from '@reins/mcp';
import { runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { openPgliteDb } from '../src/db/pglite-db.js';
import { kitchenMcpServer, sessionPrincipal } from '../src/mcp/kitchen-mcp-server.js';
import { seedDemo } from '../src/seed/seed.js';
import { createKitchenServices } from '../src/services/kitchen-services.js';
import { act, fakeNutrition, final } from './assistant-helpers.js';
import { pgliteTemplate } from './backends.js';
import { describeEachBackend } from './harness.js';

const KITCHEN_BIN = fileURLToPath(new URL('../bin/kitchen.js', import.meta.url));

/** Calls one imported tool of the bridge through a run (the client side is a Reins agent too). */
async function callOver(bridge: McpBridge, tool: string, input: Record<string, unknown>) {
  const run = runAgent({
    query: 'q',
    model: scriptModel([act(`k_${tool}`, input), final('done')]),
    tools: bridge.tools(),
    principal: { id: 'mcp-client' },
  });
  await run.result;
  const observe = run.events.find((e): e is ObserveStep => e.type === 'step' && e.phase === 'observe');
  return observe?.observation;
}

const names = (observation: Awaited<ReturnType<typeof callOver>>) =>
  ((observation?.result as { items?: { name: string }[] } | undefined)?.items ?? []).map((i) => i.name);

describeEachBackend('inward MCP server over Streamable HTTP (bearer = session token)', (harness) => {
  it('each user sees only their own household; a bad token is refused', async () => {
    const h = harness();
    const server = kitchenMcpServer(h.services, fakeNutrition().lookup);
    expect(server.toolNames).toEqual([
      'fridge_items',
      'search_recipes',
      'meal_plan',
      'household_preferences',
      'recall_memories',
      'nutrition_lookup',
    ]);
    const http = await startMcpHttp(server, { authenticate: sessionPrincipal(h.services) });
    const connect = (token: string) =>
      connectMcp({
        name: 'kitchen',
        prefix: 'k_',
        transport: { kind: 'http', url: `${http.url}/mcp`, headers: { authorization: `Bearer ${token}` } },
        reconnect: { maxAttempts: 1 },
      });
    try {
      const a = await connect(await h.login('xiaojia'));
      const b = await connect(await h.login('laowang'));
      const bad = await connect('not-a-session-token');
      try {
        const aItems = names(await callOver(a, 'fridge_items', {}));
        const bItems = names(await callOver(b, 'fridge_items', {}));
        expect(aItems).toContain('嫩豆腐');
        expect(aItems).not.toContain('鲈鱼');
        expect(bItems).toContain('鲈鱼');
        expect(bItems).not.toContain('嫩豆腐');
        // The bounded fridge view carries its total; the recipe search needs no list from the
        // client: the service matches the caller's whole fridge and pantry.
        const few = await callOver(a, 'fridge_items', { limit: 3 });
        expect(few?.result).toMatchObject({ total: 16 });
        expect(names(few)).toEqual(['牛奶', '嫩豆腐', '肉末']);
        const search = (await callOver(a, 'search_recipes', {}))?.result as {
          matches: { recipe: { name: string }; matched: string[]; missing: string[] }[];
          itemsAtHome: number;
        };
        expect(search.itemsAtHome).toBe(15); // 16 items, 牛奶 expired
        const garlic = search.matches.find((m) => m.recipe.name === '蒜蓉西兰花');
        expect(garlic?.matched).toEqual(['西兰花', '大蒜']);
        const wangSearch = JSON.stringify((await callOver(b, 'search_recipes', {}))?.result);
        expect(wangSearch).not.toContain('蒜蓉西兰花');
        const forged = await callOver(a, 'search_recipes', { householdId: await h.householdId('老王家') });
        expect(forged?.status).not.toBe('ok');
        // A household id smuggled into the arguments is refused by the strict input schema.
        const smuggled = await callOver(a, 'fridge_items', { householdId: await h.householdId('老王家') });
        expect(smuggled?.status).not.toBe('ok');
        expect(JSON.stringify(smuggled)).not.toContain('鲈鱼');
        expect(bad.status().status).toBe('down');
        expect(bad.tools()).toHaveLength(0);
      } finally {
        await Promise.all([a.close(), b.close(), bad.close()]);
      }
    } finally {
      await http.close();
    }
  }, 30_000);
});

describe('inward MCP server over stdio (`kitchen mcp --stdio`, KITCHEN_MCP_TOKEN)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('serves the token user’s household; a bad token is refused', async () => {
    // Two data directories (PGlite: one process per directory), so both children start at once.
    const prepare = async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'kitchen-mcp-'));
      dirs.push(dataDir);
      const db = await openPgliteDb({ dataDir, loadDataDir: await pgliteTemplate() });
      await seedDemo({ db });
      const { token } = await createKitchenServices({ db }).auth.login({
        username: 'laowang',
        password: 'demo-laowang',
      });
      await db.close();
      return { dataDir, token };
    };
    const [good, other] = await Promise.all([prepare(), prepare()]);
    const spawnKitchen = (dataDir: string, mcpToken: string) =>
      connectMcp({
        name: 'kitchen',
        prefix: 'k_',
        transport: {
          kind: 'stdio',
          command: process.execPath,
          args: [KITCHEN_BIN, 'mcp', '--stdio'],
          env: { REINS_DATA_DIR: dataDir, KITCHEN_MCP_TOKEN: mcpToken },
        },
        connectTimeoutMs: 45_000, // two kitchens start at once; a busy 2-core machine needs time
        protocol: 'legacy', // 'auto' spawns a second child to probe
        reconnect: { maxAttempts: 1 },
      });
    const [bad, bridge] = await Promise.all([
      spawnKitchen(other.dataDir, `${other.token.slice(0, -2)}xx`), // a forged token
      spawnKitchen(good.dataDir, good.token),
    ]);
    expect(bad.status().status).toBe('down');
    await bad.close();
    try {
      expect(bridge.status().status).toBe('up');
      const items = names(await callOver(bridge, 'fridge_items', {}));
      expect(items).toContain('鲈鱼');
      expect(items).not.toContain('嫩豆腐');
      const profile = await callOver(bridge, 'household_preferences', {});
      expect(JSON.stringify(profile?.result)).toContain('虾');
      expect(JSON.stringify(profile?.result)).not.toContain('花生');
    } finally {
      await bridge.close();
    }
  }, 120_000);
});
