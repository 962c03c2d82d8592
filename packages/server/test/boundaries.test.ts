import { afterEach, describe, expect, it } from 'vitest';
import type { Model } from 'reins';
import { scriptModel } from 'reins/testing';
import { as, final, openSse, postJson, sleep, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const agents = () => ({ a: { model: scriptModel([final('ok')]) } });

describe('request boundaries: errors are JSON data with a code', () => {
  it('no or bad credentials → 401 UNAUTHENTICATED', async () => {
    running = await start({ agents: agents() });
    for (const headers of [{}, { authorization: 'Bearer nope' }] as Record<string, string>[]) {
      const r = await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'q' }, headers);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'authentication required' } });
    }
  });

  it('a body over the cap → 413 with a JSON error, whether Content-Length says so or not', async () => {
    running = await start({ agents: agents(), limits: { maxBodyBytes: 1_000 } });
    const big = { agent: 'a', input: 'x'.repeat(2_000) };
    const r = await postJson(`${running.url}/v1/runs`, big, as('u'));
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    // Chunked (no Content-Length): counted while reading.
    const chunked = await fetch(`${running.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...as('u') },
      body: new Blob([JSON.stringify(big)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('an input over the cap → 413; a missing or blank input, bad JSON, unknown fields → 400', async () => {
    running = await start({ agents: agents(), limits: { maxInputChars: 10 } });
    const url = `${running.url}/v1/runs`;
    expect((await postJson(url, { agent: 'a', input: 'x'.repeat(11) }, as('u'))).status).toBe(413);
    for (const body of [
      { agent: 'a' },
      { agent: 'a', input: '  ' },
      { agent: 'a', input: 'q', user: 'root' },
      [1],
    ]) {
      const r = await postJson(url, body, as('u'));
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
    }
    const bad = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...as('u') },
      body: '{',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
  });

  it('an unknown agent (answered with the list of agents) or route → 404 NOT_FOUND; answering a run that asks nothing → 400 / 409', async () => {
    running = await start({ agents: { ...agents(), b: { model: scriptModel([final('ok')]) } } });
    const r = await postJson(`${running.url}/v1/runs`, { agent: 'nope', input: 'q' }, as('u'));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      error: { code: 'NOT_FOUND', message: 'no such agent "nope"; agents: a, b', agents: ['a', 'b'] },
    });
    const route = await fetch(`${running.url}/v2/anything`);
    expect(route.status).toBe(404);
    expect(await route.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const done = await postJson(`${running.url}/v1/runs`, { agent: 'a', input: 'q' }, as('u'));
    const runId = (done.body.record as { run_id: string }).run_id;
    const answer = await postJson(`${running.url}/v1/runs/${runId}/answer`, {}, as('u'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
    const notWaiting = await postJson(
      `${running.url}/v1/runs/${runId}/answer`,
      { questionId: 'q', answer: 'a' },
      as('u'),
    );
    expect(notWaiting.status).toBe(409);
    expect(notWaiting.body).toMatchObject({ error: { code: 'CONFLICT' } });
  });

  it('an agent factory gets the authenticated principal', async () => {
    const seen: string[] = [];
    running = await start({
      agents: {
        mine: (principal) => {
          seen.push(principal.id);
          return { model: scriptModel([final(`hello ${principal.id}`)]) };
        },
      },
    });
    const r = await postJson(`${running.url}/v1/runs`, { agent: 'mine', input: 'q' }, as('zoe'));
    expect(r.body.record).toMatchObject({ final_answer: 'hello zoe' });
    expect(seen).toEqual(['zoe']);
  });
});

/** A model that streams `count` deltas of `size` characters, one per macrotask, then answers. */
function floodingModel(count: number, size: number): Model {
  const chunk = 'x'.repeat(size);
  return {
    name: 'flood',
    call: async (request) => {
      for (let i = 0; i < count; i++) {
        request.onDelta?.(chunk);
        await new Promise((r) => setImmediate(r));
      }
      return { ok: true, text: final('flooded'), usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
}

describe('backpressure: a slow reader', () => {
  const count = 3_000;
  const size = 4_096; // ~12 MB in all: more than the socket buffers hold

  it('a reader that keeps up gets every event', async () => {
    running = await start({
      agents: { f: { model: floodingModel(count, size) } },
      limits: { maxStreamLagEvents: 100, maxEventsPerRun: 10_000 },
    });
    const client = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'f', input: 'q' },
      headers: as('u'),
    });
    await client.ended;
    expect(client.events).toHaveLength(count + 4);
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });

  it('a reader that stalls is told LIMIT_EXCEEDED and disconnected; the run is not cancelled and can be resumed', async () => {
    running = await start({
      agents: { f: { model: floodingModel(count, size) } },
      limits: { maxStreamLagEvents: 100, maxEventsPerRun: 10_000 },
    });
    const client = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'f', input: 'q' },
      headers: as('u'),
    });
    client.response.pause(); // stop reading: the socket buffers fill, the server's writes wait
    await sleep(1_500);
    client.response.resume();
    await client.ended;
    const overflow = client.frames.find((f) => f.event === 'error' && f.id === undefined);
    expect(overflow).toBeDefined();
    const data = JSON.parse(overflow?.data ?? '{}') as { code: string; lastEventId: number };
    expect(data.code).toBe('LIMIT_EXCEEDED');
    expect(client.events.some((e) => e.type === 'done')).toBe(false);
    // What reached the client is a prefix of the log, and it stopped well before the end.
    expect(client.events.map((e) => e.seq)).toEqual(client.events.map((_, i) => i));
    expect(data.lastEventId).toBe(client.events.length - 1);
    expect(client.events.length).toBeLessThan(count);

    const runId = client.events[0]?.runId as string;
    const rest = await openSse(`${running.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('u'), 'last-event-id': String(data.lastEventId) },
    });
    await rest.ended;
    expect(rest.events[0]?.seq).toBe(data.lastEventId + 1);
    expect(rest.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });

  it('a run that logs more than maxEventsPerRun is cancelled (the log is bounded)', async () => {
    running = await start({
      agents: { f: { model: floodingModel(count, 10) } },
      limits: { maxEventsPerRun: 200 },
    });
    const r = await postJson(`${running.url}/v1/runs`, { agent: 'f', input: 'q' }, as('u'));
    expect(r.body.record).toMatchObject({ status: 'cancelled' });
    expect((r.body.events as unknown[]).length).toBeLessThan(210);
  });
});
