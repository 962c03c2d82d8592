import { afterEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError, memoryRunStore, type RunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import { createReinsServer, type ReinsServer } from '@reins/server';
import { as, bearerAuth, final, memoryLogger, writeAs } from './helpers.js';

// POST /v1/runs with a durable store that cannot store the run: 503, "a run whose row cannot be
// stored never starts". But the conversation turn was opened (status "running") before the run
// store was asked, and nothing closed it: the conversation showed for ever a turn running that
// would never end, of a run that does not exist. Now a named conversation shows the turn as an
// error that did not start; a conversation made for the run is deleted.

let server: ReinsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a run refused because the run store is down', () => {
  it('leaves no running turn in its conversation', async () => {
    const inner = memoryRunStore();
    let down = false;
    const store: RunStore = {
      ...inner,
      create: (...args) =>
        down
          ? Promise.reject(new DependencyUnavailableError('database', 'the database is unavailable'))
          : inner.create(...args),
    };
    server = createReinsServer({
      agents: { a: { model: scriptModel([final('first answer'), final('third answer')]) } },
      authenticate: bearerAuth,
      logger: memoryLogger('silent').logger,
      durable: { store },
    });
    const post = (input: string, conversationId?: string) =>
      server!.app.request('/v1/runs', {
        method: 'POST',
        headers: writeAs('alice'),
        body: JSON.stringify({
          agent: 'a',
          input,
          ...(conversationId === undefined ? {} : { conversationId }),
        }),
      });
    const first = await post('first question', 'conv-1');
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    await new Promise((r) => setTimeout(r, 30));

    down = true;
    const refused = await post('second question', 'conv-1');
    expect(refused.status).toBe(503); // never started
    await refused.arrayBuffer();
    down = false;

    const conversation = (await (
      await server.app.request('/v1/conversations/conv-1', { headers: as('alice') })
    ).json()) as { turns: { runId: string; query: string; status: string }[] };
    const statuses = conversation.turns.map((t) => `${t.query}: ${t.status}`);
    expect(statuses).toEqual(['first question: success', 'second question: error']);
    const second = conversation.turns[1] as { runId: string; answer?: string };
    expect(second.answer).toBe('(the run did not start: SERVICE_UNAVAILABLE)');
    expect((await server.app.request(`/v1/runs/${second.runId}`, { headers: as('alice') })).status).toBe(404);

    // The next turn goes on in the same conversation, and its model is not shown a running turn.
    const third = await post('third question', 'conv-1');
    expect(third.status).toBe(200);
    await third.arrayBuffer();
  });

  it('a conversation made for a run that did not start is not kept', async () => {
    const inner = memoryRunStore();
    const store: RunStore = {
      ...inner,
      create: () => Promise.reject(new DependencyUnavailableError('database', 'the database is unavailable')),
    };
    server = createReinsServer({
      agents: { a: { model: scriptModel([final('never')]) } },
      authenticate: bearerAuth,
      logger: memoryLogger('silent').logger,
      durable: { store },
    });
    const refused = await server.app.request('/v1/runs', {
      method: 'POST',
      headers: writeAs('alice'),
      body: JSON.stringify({ agent: 'a', input: 'a first question' }),
    });
    expect(refused.status).toBe(503);
    await refused.arrayBuffer();
    const listed = (await (
      await server.app.request('/v1/conversations', { headers: as('alice') })
    ).json()) as {
      conversations: unknown[];
    };
    expect(listed.conversations).toEqual([]);
  });
});
