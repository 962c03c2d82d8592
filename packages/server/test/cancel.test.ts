import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import type { RunRecord } from 'reins';
import { stopPhraseMatcher } from '@reins/server';
import { act, as, countingAdd, final, openSse, postJson, sleep, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A run that would take four slow model steps, each calling the counting tool. */
function slowAgent() {
  const model = scriptModel([
    { text: act('add', { a: 1, b: 1 }), delayMs: 50 },
    { text: act('add', { a: 2, b: 2 }), delayMs: 300 },
    { text: act('add', { a: 3, b: 3 }), delayMs: 300 },
    { text: final('done'), delayMs: 300 },
  ]);
  const { tool, calls } = countingAdd();
  return { model, calls, agent: { model, tools: [tool], limits: { maxSteps: 4 } } };
}

async function record(url: string, runId: string, user = 'alice'): Promise<RunRecord> {
  const response = await fetch(`${url}/v1/runs/${runId}`, { headers: as(user) });
  return (await response.json()) as RunRecord;
}

async function waitForRecord(url: string, runId: string): Promise<RunRecord> {
  for (let i = 0; i < 100; i++) {
    const r = await record(url, runId);
    if (r.status !== ('running' as string)) return r;
    await sleep(20);
  }
  throw new Error('run did not end');
}

describe('cancel on disconnect', () => {
  it('a client that goes away after the first step event: nothing is called afterwards, the run is cancelled', async () => {
    const { model, calls, agent } = slowAgent();
    running = await start({ agents: { slow: agent } });
    const client = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'slow', input: 'count' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'step');
    const runId = client.events[0]?.runId as string;
    client.destroy();
    // At this point step 1 has acted and the second model call is waiting (300 ms).
    const ended = await waitForRecord(running.url, runId);
    const callsAtEnd = { model: model.calls.length, tool: calls.length };
    await sleep(800); // longer than the remaining scripted delays together
    expect(ended.status).toBe('cancelled');
    expect(ended.model_steps).toBe(1); // the last completed step
    expect(callsAtEnd).toEqual({ model: 2, tool: 1 }); // the 2nd model call was in flight and aborted
    expect({ model: model.calls.length, tool: calls.length }).toEqual(callsAtEnd);
    expect(model.calls[1]?.signal.aborted).toBe(true);
    expect(model.remaining).toBe(2);
  });

  it('a JSON client that goes away cancels its run too', async () => {
    const { model, agent } = slowAgent();
    running = await start({ agents: { slow: agent } });
    const controller = new AbortController();
    const pending = fetch(`${running.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...as('alice') },
      body: JSON.stringify({ agent: 'slow', input: 'count' }),
      signal: controller.signal,
    }).catch(() => undefined);
    await sleep(150);
    controller.abort();
    await pending;
    const [entry] = [...(await sleep(300).then(() => running?.server.runs.unfinished('alice') ?? []))];
    expect(entry).toBeUndefined(); // nothing in flight any more
    expect(model.calls.length).toBe(2);
    expect(model.remaining).toBe(2);
  });
});

describe('POST /v1/runs/:id/cancel', () => {
  it('cancels the run and answers its status and last completed step', async () => {
    const { model, agent } = slowAgent();
    running = await start({ agents: { slow: agent } });
    const client = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'slow', input: 'count' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'step' && (f.data ?? '').includes('"observe"'));
    const runId = client.events[0]?.runId as string;
    const { status, body } = await postJson(`${running.url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ run_id: runId, status: 'cancelled', steps_completed: 1 });
    expect(body.last_step).toMatchObject({ index: 1, phase: 'observe' });
    await client.ended;
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled', steps: 1 });
    expect(model.calls.length).toBe(2);
  });
});

describe('a stop message', () => {
  it.each(['cancel', ' Stop! ', 'nevermind', '算了', '不用了。', '算了！', 'CANCEL!!'])(
    '%j is a stop phrase',
    (input) => expect(stopPhraseMatcher()(input)).toBe(true),
  );
  it.each(['stop the oven timer', 'cancel my dinner plan?', 'what is 算了'])('%j is not', (input) =>
    expect(stopPhraseMatcher()(input)).toBe(false),
  );

  it("cancels the user's in-flight runs (not another user's), starts no model call, reports where they stopped", async () => {
    const alice = slowAgent();
    running = await start({ agents: { slow: alice.agent } });
    const mine = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'slow', input: 'count' },
      headers: as('alice'),
    });
    await mine.waitFor((f) => f.event === 'step' && (f.data ?? '').includes('"observe"'));
    const modelCallsBefore = alice.model.calls.length;

    const { status, body } = await postJson(
      `${running.url}/v1/runs`,
      { agent: 'slow', input: '算了！' },
      as('alice'),
    );
    expect(status).toBe(200);
    const cancelled = body.cancelled as { run_id: string; status: string; steps_completed: number }[];
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({
      run_id: mine.events[0]?.runId,
      status: 'cancelled',
      steps_completed: 1,
    });
    expect(alice.model.calls.length).toBe(modelCallsBefore); // the stop message called no model
    await mine.ended;
    expect(mine.events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });

    const other = await postJson(`${running.url}/v1/runs`, { agent: 'slow', input: 'stop' }, as('bob'));
    expect(other.body).toEqual({ stopped: true, cancelled: [] });
  });
});
