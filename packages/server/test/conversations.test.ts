import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineAnswer,
  memoryConversationStore,
  memoryRunStore,
  type ChatMessage,
  type ConversationStore,
  type Model,
  type ModelRequest,
  type RunEvent,
} from 'reins';
import { as, final, openSse, postJson, start, writeAs, type Started } from './helpers.js';

/** A model that answers from a list and keeps the system prompt of every call. */
function recordingModel(replies: string[]) {
  const systems: string[] = [];
  const model: Model = {
    name: 'recording',
    async call(request: ModelRequest) {
      systems.push(
        request.messages
          .filter((m: ChatMessage) => m.role === 'system')
          .map((m) => m.content)
          .join('\n'),
      );
      return { ok: true, text: replies.shift() ?? final('?'), usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
  return { model, systems };
}

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function boot(replies: string[], withStore = false) {
  const { model, systems } = recordingModel(replies);
  running = await start({
    agents: {
      chef: {
        model,
        tools: [],
        instructions: 'You are a chef.',
        turnAbout: (record) =>
          record.final_answer.includes('番茄炒蛋') ? { recipe: { name: '番茄炒蛋' } } : undefined,
      },
    },
    ...(withStore ? { durable: { store: memoryRunStore() } } : {}),
  });
  return { url: running.url, systems };
}

describe('conversations: a follow-up sees the earlier turns', () => {
  it('a new run names its conversation in start; the next turn is shown the first (question, answer, task state)', async () => {
    const { url, systems } = await boot([final('今晚做番茄炒蛋'), final('明天做青椒肉丝')], true);
    const first = await openSse(`${url}/v1/runs`, {
      body: { agent: 'chef', input: '今天晚饭吃什么？' },
      headers: as('alice'),
    });
    await first.ended;
    const start = first.events[0] as Extract<RunEvent, { type: 'start' }>;
    expect(start.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(systems[0]).not.toContain('Earlier in this conversation');

    const second = await postJson(
      `${url}/v1/runs`,
      { agent: 'chef', input: '那明天呢？', conversationId: start.conversationId },
      as('alice'),
    );
    expect(second.status).toBe(200);
    expect(systems[1]).toContain('You are a chef.');
    expect(systems[1]).toContain('Earlier in this conversation');
    expect(systems[1]).toContain(
      '{"user":"今天晚饭吃什么？","answer":"今晚做番茄炒蛋","about":{"recipe":{"name":"番茄炒蛋"}}}',
    );

    const list = (await (await fetch(`${url}/v1/conversations`, { headers: as('alice') })).json()) as {
      conversations: unknown[];
    };
    expect(list.conversations).toHaveLength(1);
    expect(list.conversations[0]).toMatchObject({
      id: start.conversationId,
      title: '今天晚饭吃什么？',
      turnCount: 2,
    });
    const one = (await (
      await fetch(`${url}/v1/conversations/${start.conversationId}`, { headers: as('alice') })
    ).json()) as { turns: { query: string; answer: string; status: string }[] };
    expect(one.turns.map((t) => [t.query, t.answer, t.status])).toEqual([
      ['今天晚饭吃什么？', '今晚做番茄炒蛋', 'success'],
      ['那明天呢？', '明天做青椒肉丝', 'success'],
    ]);
  });

  it('a run without a conversationId reads no earlier turns (its id is new); one with an id does', async () => {
    // A read per run that can only find nothing: at 200 runs in flight, a statement each for nothing.
    const memory = memoryConversationStore();
    const reads: string[] = [];
    const store: ConversationStore = {
      ...memory,
      get: (conversationId, ownerId, now) => {
        reads.push(conversationId);
        return memory.get(conversationId, ownerId, now);
      },
    };
    running = await start({
      agents: { chef: { model: recordingModel([final('a'), final('b')]).model, tools: [] } },
      conversations: { store },
    });
    const first = await postJson(`${running.url}/v1/runs`, { agent: 'chef', input: 'hi' }, as('alice'));
    expect(first.status).toBe(200);
    expect(reads).toEqual([]);
    const events = first.body.events as RunEvent[];
    const conversationId = (events[0] as Extract<RunEvent, { type: 'start' }>).conversationId;
    expect(conversationId).toBeDefined();
    const second = await postJson(
      `${running.url}/v1/runs`,
      { agent: 'chef', input: 'and then?', conversationId },
      as('alice'),
    );
    expect(second.status).toBe(200);
    expect(reads).toEqual([conversationId]);
  });

  it("someone else's conversation is a 404 everywhere, and cannot be continued", async () => {
    const { url } = await boot([final('a'), final('b')]);
    const first = await postJson(`${url}/v1/runs`, { agent: 'chef', input: 'hi' }, as('alice'));
    const runId = (first.body.record as { run_id: string }).run_id;
    const events = first.body.events as RunEvent[];
    const conversationId = (events[0] as Extract<RunEvent, { type: 'start' }>).conversationId;
    expect(runId).toBeDefined();
    expect(
      (await fetch(`${url}/v1/conversations/${conversationId}`, { headers: as('mallory') })).status,
    ).toBe(404);
    const hijack = await postJson(
      `${url}/v1/runs`,
      { agent: 'chef', input: 'what did she say?', conversationId },
      as('mallory'),
    );
    expect(hijack.status).toBe(404);
    const theirs = (await (await fetch(`${url}/v1/conversations`, { headers: as('mallory') })).json()) as {
      conversations: unknown[];
    };
    expect(theirs.conversations).toEqual([]);
    const del = await fetch(`${url}/v1/conversations/${conversationId}`, {
      method: 'DELETE',
      headers: writeAs('mallory'),
    });
    expect(del.status).toBe(404);
  });

  it('DELETE forgets the conversation and its runs; a bad id is a 400', async () => {
    const { url } = await boot([final('a')], true);
    const first = await postJson(
      `${url}/v1/runs`,
      { agent: 'chef', input: 'hi', conversationId: 'kitchen-chat-1' },
      as('alice'),
    );
    const runId = (first.body.record as { run_id: string }).run_id;
    const del = await fetch(`${url}/v1/conversations/kitchen-chat-1`, {
      method: 'DELETE',
      headers: writeAs('alice'),
    });
    expect(await del.json()).toEqual({ deleted: true, conversationId: 'kitchen-chat-1', turns: 1, runs: 1 });
    expect((await fetch(`${url}/v1/conversations/kitchen-chat-1`, { headers: as('alice') })).status).toBe(
      404,
    );
    expect((await fetch(`${url}/v1/runs/${runId}`, { headers: as('alice') })).status).toBe(404);
    const bad = await postJson(
      `${url}/v1/runs`,
      { agent: 'chef', input: 'hi', conversationId: '../etc' },
      as('alice'),
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
  });

  it('older turns are summarized within the history budget', async () => {
    const replies = Array.from({ length: 6 }, (_, i) => final(`answer ${i} ${'x'.repeat(200)}`));
    const { url, systems } = await boot(replies);
    const conversationId = 'long-one';
    for (let i = 0; i < 6; i++) {
      await postJson(
        `${url}/v1/runs`,
        { agent: 'chef', input: `question ${i}`, conversationId },
        as('alice'),
      );
    }
    const last = systems[5] ?? '';
    expect(last).toContain('(2 earlier turn(s), summarized) the user asked: question 0 / question 1');
    expect(last).toContain('"user":"question 4"');
    expect(last).not.toContain('"user":"question 1"');
  });
  it('a turn keeps its structured answer’s data (cards) for clients, within a bound, never for the model', async () => {
    const card = { type: 'recipe', name: '番茄炒蛋', missing: ['葱'] };
    const answer = defineAnswer({
      schema: z.object({ reply: z.string(), cards: z.array(z.record(z.string(), z.unknown())) }),
      text: (data) => data.reply,
    });
    const reply = (text: string) => JSON.stringify({ thought: 't', final: { reply: text, cards: [card] } });
    const { model, systems } = recordingModel([
      reply('今晚做番茄炒蛋'),
      reply('明天也行'),
      reply('x'.repeat(200)),
    ]);
    running = await start({
      agents: { chef: { model, tools: [], answer } },
      conversations: { store: memoryConversationStore(), maxAnswerDataBytes: 200 },
    });
    const ask = async (input: string, conversationId?: string) => {
      const run = await postJson(
        `${running?.url}/v1/runs`,
        { agent: 'chef', input, conversationId },
        as('alice'),
      );
      return (run.body.events as RunEvent[])[0] as Extract<RunEvent, { type: 'start' }>;
    };
    const { conversationId } = await ask('今天晚饭吃什么？');
    await ask('那明天呢？', conversationId);
    await ask('long', conversationId);
    const one = (await (
      await fetch(`${running.url}/v1/conversations/${conversationId}`, { headers: as('alice') })
    ).json()) as { turns: { answer: string; answerData?: unknown }[] };
    expect(one.turns.map((t) => t.answer)).toEqual(['今晚做番茄炒蛋', '明天也行', 'x'.repeat(200)]);
    expect(one.turns[0]?.answerData).toEqual({ reply: '今晚做番茄炒蛋', cards: [card] });
    expect(one.turns[1]?.answerData).toEqual({ reply: '明天也行', cards: [card] });
    expect(one.turns[2]).not.toHaveProperty('answerData'); // over 200 bytes of JSON: the text only
    // The next run is shown the earlier answers' text, not their cards.
    expect(systems[1]).toContain('今晚做番茄炒蛋');
    expect(systems[1]).not.toContain('"missing"');
  });

  it('DELETE while a turn is still running cancels it and leaves nothing behind: no conversation comes back, no write to the deleted run', async () => {
    const store = memoryRunStore();
    const stuck: Model = { name: 'stuck', call: () => new Promise(() => undefined) };
    running = await start({
      agents: { chef: { model: stuck, tools: [] } },
      durable: { store },
      limits: { disconnectGraceMs: 60_000 },
    });
    const { url, server } = running;
    const client = await openSse(`${url}/v1/runs`, {
      body: { agent: 'chef', input: 'hi', conversationId: 'busy-chat' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    const runId = (client.events[0] as RunEvent).runId;
    const del = await fetch(`${url}/v1/conversations/busy-chat`, {
      method: 'DELETE',
      headers: writeAs('alice'),
    });
    expect(del.status).toBe(200);
    await client.ended;
    await new Promise((r) => setTimeout(r, 300));
    // The cancelled turn's end does not bring the conversation back.
    expect((await fetch(`${url}/v1/conversations/busy-chat`, { headers: as('alice') })).status).toBe(404);
    const mine = (await (await fetch(`${url}/v1/conversations`, { headers: as('alice') })).json()) as {
      conversations: unknown[];
    };
    expect(mine.conversations).toEqual([]);
    // Its last events were not written to a run that no longer exists (and retried forever).
    expect(await store.load(runId)).toBeUndefined();
    const failures = await server.metrics.runStoreFailures.get();
    expect(failures.values.reduce((n, v) => n + v.value, 0)).toBe(0);
  });
});
