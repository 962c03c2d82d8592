import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { act, as, countingAdd, final, openSse, start, writeAs, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function agent() {
  const { tool } = countingAdd();
  return {
    model: scriptModel([
      { text: act('add', { a: 1, b: 1 }), delayMs: 20 },
      { text: act('add', { a: 2, b: 2 }), delayMs: 200 },
      { text: final('4'), delayMs: 200 },
    ]),
    tools: [tool],
  };
}

describe('GET /v1/runs/:id/events with Last-Event-ID', () => {
  it('replays exactly the missed events, then follows live to done', async () => {
    running = await start({ agents: { a: agent() }, limits: { disconnectGraceMs: 3_000 } });
    const first = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'a', input: 'q' },
      headers: as('alice'),
    });
    await first.waitFor((f) => f.id === '2');
    first.destroy();
    const seen = first.events.filter((e) => e.seq <= 2);
    const runId = seen[0]?.runId as string;

    const again = await openSse(`${running.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': '2' },
    });
    await again.ended;
    expect(again.events[0]?.seq).toBe(3);
    const all = [...seen, ...again.events];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i)); // no gap, no duplicate
    expect(all.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(again.frames.filter((f) => f.id !== undefined).map((f) => Number(f.id))).toEqual(
      again.events.map((e) => e.seq),
    );
  });

  it('after the run ended, replays the rest of the log; without the header, the whole log', async () => {
    running = await start({ agents: { a: agent() } });
    const first = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'a', input: 'q' },
      headers: as('alice'),
    });
    await first.ended;
    const runId = first.events[0]?.runId as string;
    const tail = await openSse(`${running.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': String(first.events.length - 3) },
    });
    await tail.ended;
    expect(tail.events).toEqual(first.events.slice(-2));
    const whole = await openSse(`${running.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: as('alice'),
    });
    await whole.ended;
    expect(whole.events).toEqual(first.events);
  });

  it('rejects a Last-Event-ID that is not an event id (400, JSON error)', async () => {
    running = await start({ agents: { a: agent() } });
    const first = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'a', input: 'q' },
      headers: as('alice'),
    });
    await first.ended;
    const response = await fetch(`${running.url}/v1/runs/${first.events[0]?.runId}/events`, {
      headers: { ...as('alice'), 'last-event-id': 'abc' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
  });
});

describe("another user's run", () => {
  it('is the same 404 as a run that does not exist, on every route', async () => {
    running = await start({ agents: { a: agent() } });
    const first = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'a', input: 'q' },
      headers: as('alice'),
    });
    await first.ended;
    const runId = first.events[0]?.runId as string;
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/events'],
      ['POST', '/cancel'],
      ['POST', '/approve'],
      ['POST', '/answer'],
    ] as const) {
      const headers = method === 'GET' ? as('bob') : writeAs('bob');
      const theirs = await fetch(`${running.url}/v1/runs/${runId}${suffix}`, { method, headers });
      const none = await fetch(`${running.url}/v1/runs/${missing}${suffix}`, { method, headers });
      expect(theirs.status).toBe(404);
      expect(none.status).toBe(404);
      expect(await theirs.text()).toBe(await none.text());
    }
    const own = await fetch(`${running.url}/v1/runs/${runId}`, { headers: as('alice') });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ run_id: runId, status: 'success' });
  });
});
