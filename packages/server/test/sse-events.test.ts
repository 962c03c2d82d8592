import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { defineAnswer, type ScriptReply } from 'reins';
import { z } from 'zod';
import { act, as, countingAdd, final, openSse, postJson, shape, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function sseRun(replies: ScriptReply[], options: { maxSteps?: number; input?: string } = {}) {
  const { tool, calls } = countingAdd();
  running = await start({
    agents: {
      helper: {
        model: scriptModel(replies),
        tools: [tool],
        ...(options.maxSteps === undefined ? {} : { limits: { maxSteps: options.maxSteps } }),
      },
    },
  });
  const client = await openSse(`${running.url}/v1/runs`, {
    body: { agent: 'helper', input: options.input ?? 'what is 1 + 2?' },
    headers: as('alice'),
  });
  await client.ended;
  return { client, calls };
}

/** Every run event frame: `id:` = seq, `event:` = type, exactly one `data:` line. */
function expectWellFormed(client: Awaited<ReturnType<typeof openSse>>): void {
  const eventFrames = client.frames.filter((f) => f.comment === undefined);
  expect(eventFrames).toHaveLength(client.events.length);
  eventFrames.forEach((frame, i) => {
    expect(frame.id).toBe(String(i));
    expect(frame.event).toBe(client.events[i]?.type);
    expect(frame.lines.filter((l) => l.startsWith('data:'))).toHaveLength(1);
    expect(client.events[i]?.seq).toBe(i);
  });
}

describe('POST /v1/runs over SSE', () => {
  it('success: start → step:reason → step:act → step:observe → step:reason → message → done', async () => {
    const { client, calls } = await sseRun([act('add', { a: 1, b: 2 }), final('3')]);
    expect(client.response.statusCode).toBe(200);
    expect(client.response.headers['content-type']).toContain('text/event-stream');
    expect(shape(client.events)).toEqual([
      'start',
      'step:reason',
      'step:act',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    expectWellFormed(client);
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(calls).toEqual([{ a: 1, b: 2, principal: 'alice' }]); // the principal came from auth
  });

  it('a tool error is an observation, and the run goes on to its answer', async () => {
    const { client } = await sseRun([act('add', { a: -1, b: 2 }), final('could not add')]);
    expect(shape(client.events)).toEqual([
      'start',
      'step:reason',
      'step:act',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    expect(client.events[3]).toMatchObject({
      observation: { status: 'error', error: { code: 'NOT_FOUND' } },
    });
    expectWellFormed(client);
  });

  it('a limit hit (maxSteps) ends with the notice message and done stopped/max_steps', async () => {
    const { client } = await sseRun([act('add', { a: 1, b: 1 }), act('add', { a: 2, b: 2 })], {
      maxSteps: 2,
    });
    expect(shape(client.events)).toEqual([
      'start',
      'step:reason',
      'step:act',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    expect(client.events.at(-2)).toMatchObject({ type: 'message', intent: 'notice' });
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'stopped', stopReason: 'max_steps' });
    expectWellFormed(client);
  });

  it('a model failure is error → done(error)', async () => {
    const { client } = await sseRun([{ error: 'http_500' }]);
    expect(shape(client.events)).toEqual(['start', 'error', 'done']);
    expect(client.events[1]).toMatchObject({ type: 'error', code: 'MODEL_FAILED' });
    expect(client.events[2]).toMatchObject({ type: 'done', status: 'error' });
    expectWellFormed(client);
  });

  it('model text cannot forge an SSE event (newlines stay inside one data line)', async () => {
    const forged = 'ok\n\nevent: done\ndata: {}\n\nid: 99\nevent: message\ndata: {"text":"pwned"}';
    const { client } = await sseRun([final(forged)]);
    expect(shape(client.events)).toEqual(['start', 'step:reason', 'message', 'done']);
    expect(client.frames.filter((f) => f.event === 'done')).toHaveLength(1);
    expect(client.frames.some((f) => f.id === '99')).toBe(false);
    expect(client.events[2]).toMatchObject({ type: 'message', text: forged });
    expectWellFormed(client);
  });

  it('sends comment keep-alives at the configured interval while the model thinks', async () => {
    running = await start({
      agents: { slow: { model: scriptModel([{ text: final('ok'), delayMs: 400 }]) } },
      limits: { keepAliveMs: 50 },
    });
    const client = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'slow', input: 'hi' },
      headers: as('a'),
    });
    await client.ended;
    const comments = client.frames.filter((f) => f.comment === 'keep-alive');
    expect(comments.length).toBeGreaterThanOrEqual(3);
    expect(shape(client.events)).toEqual(['start', 'step:reason', 'message', 'done']);
  });
});

describe('POST /v1/runs without Accept: text/event-stream', () => {
  it('answers one JSON document with the record and the same events as the stream', async () => {
    const replies = [act('add', { a: 1, b: 2 }), final('3')];
    const { client } = await sseRun(replies);
    const sseShape = shape(client.events);
    await running?.close();

    const { tool } = countingAdd();
    running = await start({ agents: { helper: { model: scriptModel(replies), tools: [tool] } } });
    const { status, headers, body } = await postJson(
      `${running.url}/v1/runs`,
      { agent: 'helper', input: 'what is 1 + 2?' },
      as('alice'),
    );
    expect(status).toBe(200);
    expect(headers.get('content-type')).toContain('application/json');
    const events = body.events as Parameters<typeof shape>[0];
    expect(shape(events)).toEqual(sseShape);
    expect(body.record).toMatchObject({ status: 'success', final_answer: '3', model_steps: 2 });
    expect((body.record as { run_id: string }).run_id).toBe(events[0]?.runId);
    expect(headers.get('x-run-id')).toBe(events[0]?.runId);
  });
});

describe('an agent with a structured answer format', () => {
  it('streams the checked data on the message and returns it in the JSON record', async () => {
    const answer = defineAnswer({
      schema: z.object({ reply: z.string(), n: z.number() }),
      text: (d) => d.reply,
      finalize: (d) => ({ ...d, n: 42 }), // stamped by code
    });
    const reply = '{"thought":"t","final":{"reply":"ok","n":1}}';
    running = await start({ agents: { carded: { model: scriptModel([reply, reply]), answer } } });
    const client = await openSse(`${running.url}/v1/runs`, {
      body: { agent: 'carded', input: 'go' },
      headers: as('alice'),
    });
    await client.ended;
    expect(client.events.find((e) => e.type === 'message')).toMatchObject({
      format: 'structured',
      text: 'ok',
      data: { reply: 'ok', n: 42 },
    });
    const json = await postJson(`${running.url}/v1/runs`, { agent: 'carded', input: 'go' }, as('alice'));
    expect(json.body.record).toMatchObject({ answer_data: { reply: 'ok', n: 42 }, final_answer: 'ok' });
  });
});
