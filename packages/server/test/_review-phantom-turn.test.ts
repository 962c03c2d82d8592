import { afterEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError, memoryRunStore, type RunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import { createReinsServer, type ReinsServer } from '@reins/server';
import { as, bearerAuth, final, memoryLogger, writeAs } from './helpers.js';

// POST /v1/runs with a durable store that cannot store the run: 503, "a run whose row cannot be
// stored never starts". But the conversation turn was opened (status "running") before the run
// store was asked, and nothing closes it: the conversation shows — for ever, and to the model of
// its next turn — a turn that is running and will never end, of a run that does not exist.

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
        down ? Promise.reject(new DependencyUnavailableError('database', 'the database is unavailable')) : inner.create(...args),
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
        body: JSON.stringify({ agent: 'a', input, ...(conversationId === undefined ? {} : { conversationId }) }),
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
    // Got "second question: running" — a run that never started, shown running for ever.
    expect(statuses).not.toContain('second question: running');
    for (const turn of conversation.turns) {
      const run = await server.app.request(`/v1/runs/${turn.runId}`, { headers: as('alice') });
      expect(run.status, `turn "${turn.query}" names run ${turn.runId}`).toBe(200);
    }
  });
});
