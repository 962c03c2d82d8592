import { expect, it } from 'vitest';
import { connectMcp, startMcpHttp } from '@reins/mcp';
import { runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { kitchenMcpServer, sessionPrincipal } from '../src/mcp/kitchen-mcp-server.js';
import { act, actions, ask, call, fakeNutrition, final } from './assistant-helpers.js';
import { describeEachBackend, type Harness } from './harness.js';
import { answerOf, askOverHttp, assistantServer } from './memory-helpers.js';

/** Household A's (小贾家) memories, each with a word no other household's data has. */
const A_MEMORIES = ['婆婆不吃辣', '小宝对花生过敏', '暗号：紫甘蓝只给小贾家'];

async function seedA(h: Harness): Promise<{ token: string; ids: string[]; markers: string[] }> {
  const token = await h.login('xiaojia');
  const ids: string[] = [];
  for (const text of A_MEMORIES) {
    const reply = await h.request('POST', '/api/memories', { token, body: { text } });
    ids.push((reply.body as { id: string }).id);
  }
  return { token, ids, markers: [...A_MEMORIES, ...ids] };
}

const expectNone = (where: string, text: string, markers: readonly string[]) => {
  for (const marker of markers) expect(text.includes(marker), `${where} contains ${marker}`).toBe(false);
};

describeEachBackend('household memories never cross households', (harness) => {
  it('REST: household B cannot list, delete or overwrite A’s memories', async () => {
    const h = harness();
    const a = await seedA(h);
    const b = await h.login('laowang');
    const listed = await h.request('GET', '/api/memories', { token: b });
    expectNone('B list', JSON.stringify(listed.body), a.markers);
    for (const id of a.ids) {
      const deleted = await h.request('DELETE', `/api/memories/${id}`, { token: b });
      expect(deleted.status).toBe(404); // the same answer as for an id that does not exist
    }
    // The same text in B is B's own memory (deleted again: later tests expect B to have none of A's texts).
    const mine = await h.request('POST', '/api/memories', { token: b, body: { text: '婆婆不吃辣' } });
    const mineId = (mine.body as { id: string }).id;
    expect(a.ids).not.toContain(mineId);
    expect((await h.request('DELETE', `/api/memories/${mineId}`, { token: b })).status).toBe(204);
    const aList = (await h.request('GET', '/api/memories', { token: a.token })).body as {
      memories: { id: string }[];
    };
    expect(aList.memories.map((m) => m.id)).toEqual(expect.arrayContaining(a.ids));
    const bRecall = await h.services.memories.recall(await h.principal('laowang'), {
      query: '紫甘蓝 暗号 花生',
    });
    expectNone('B recall', JSON.stringify(bRecall), a.markers);
  });

  it('the assistant over HTTP answers B from B’s memories only', async () => {
    const h = harness();
    const a = await seedA(h);
    const b = await h.login('laowang');
    const app = assistantServer(h);
    for (const question of ['今晚做什么菜？', '这周的菜单怎么安排？', '冰箱里有什么快过期了？']) {
      const run = await askOverHttp(app, b, question);
      expect(
        run.events.some((e) => e.type === 'step' && e.phase === 'act' && e.tool === 'recall_memories'),
      ).toBe(true);
      expect(answerOf(run).memories ?? []).toEqual([]);
      // The kept prompts' system messages are the agent's fixed instructions and tool catalog
      // (remember_memory's example is 婆婆不吃辣): the household data is elsewhere.
      const system = /"role":"system","content":"(?:[^"\\]|\\.)*"/g;
      expect(run.text.match(system)?.length).toBeGreaterThan(0);
      expectNone(`B run for ${question}`, run.text.replace(system, ''), a.markers);
    }
    // A asking the same gets its own memories: the recall works, it is only scoped.
    const mine = await askOverHttp(app, a.token, '今晚做什么菜？');
    expect(answerOf(mine).memories?.map((m) => m.text)).toEqual(expect.arrayContaining(['婆婆不吃辣']));
  });

  it('a script-model attacker in B (household ids, A’s ids, SQL, wildcards) recalls nothing of A', async () => {
    const h = harness();
    const a = await seedA(h);
    const household = await h.householdId('小贾家');
    const laowang = await h.principal('laowang');
    const run = await ask(
      h,
      laowang,
      scriptModel([
        actions([
          call('recall_memories', { query: '婆婆不吃辣', household_id: household }),
          call('recall_memories', { query: '花生', scope: `household:${household}` }),
          call('recall_memories', { query: a.ids[0] ?? '' }),
        ]),
        actions([
          call('recall_memories', { query: "' OR 1=1 --" }),
          call('recall_memories', { query: `%' UNION SELECT content FROM kitchen_memories --` }),
          call('recall_memories', { query: '% _ 紫甘蓝 暗号 花生 辣 婆婆', limit: 10 }),
        ]),
        final('done'),
      ]),
    );
    expect(run.observations.filter((o) => o.tool === 'recall_memories')).toHaveLength(6);
    expect(run.observations.filter((o) => o.status === 'ok').length).toBeGreaterThanOrEqual(4);
    // The attacker typed A's texts and an id into its inputs; the results hold nothing of A.
    const results = JSON.stringify(run.observations.map((o) => o.result ?? null));
    expectNone('results', results, a.markers);
    expectNone('answer', run.answer ?? '', a.markers);
  });

  it('the inward MCP server’s recall_memories answers each token’s household only', async () => {
    const h = harness();
    const a = await seedA(h);
    const server = kitchenMcpServer(h.services, fakeNutrition().lookup);
    expect(server.toolNames).toContain('recall_memories');
    expect(server.toolNames).not.toContain('remember_memory'); // no approval step over MCP
    const http = await startMcpHttp(server, { authenticate: sessionPrincipal(h.services) });
    const bridge = await connectMcp({
      name: 'kitchen',
      prefix: 'k_',
      transport: {
        kind: 'http',
        url: `${http.url}/mcp`,
        headers: { authorization: `Bearer ${await h.login('laowang')}` },
      },
      reconnect: { maxAttempts: 1 },
    });
    try {
      const recall = async (input: Record<string, unknown>) => {
        const run = runAgent({
          query: 'q',
          model: scriptModel([act('k_recall_memories', input), final('done')]),
          tools: bridge.tools(),
          principal: { id: 'mcp-client' },
        });
        await run.result;
        return run.events.find((e): e is ObserveStep => e.type === 'step' && e.phase === 'observe')
          ?.observation;
      };
      const plain = await recall({ query: '婆婆不吃辣 花生 紫甘蓝' });
      expect(plain?.status).toBe('ok');
      expectNone('MCP recall', JSON.stringify(plain), a.markers);
      const smuggled = await recall({ query: '婆婆不吃辣', householdId: await h.householdId('小贾家') });
      expect(smuggled?.status).not.toBe('ok');
      expectNone('MCP smuggled', JSON.stringify(smuggled), a.markers);
    } finally {
      await bridge.close();
      await http.close();
    }
  }, 30_000);
});
