import { afterEach, describe, expect, it } from 'vitest';
import {
  memoryConversationStore,
  memoryRunStore,
  type ApprovalEvent,
  type Model,
  type RunEvent,
  type RunStore,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { requestRecord } from '../src/launch-run.js';
import { act, as, final, openSse, orderTool, postJson, shape, start, type Started } from './helpers.js';

/** A model that never answers: the "process" dies during this model call. */
const stuckModel: Model = { name: 'stuck', call: () => new Promise(() => undefined) };

const servers: Started[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function boot(store: RunStore, model: Model, placed: string[], resume = true) {
  const started = await start({
    agents: { shop: { model, tools: [orderTool(placed)] } },
    durable: { store, resume },
  });
  servers.push(started);
  const report = await started.server.recover();
  return { ...started, report };
}

/** A run left running in `store` by a server that went away during its model call. */
async function leftRunning(store: RunStore): Promise<string> {
  const first = await boot(store, stuckModel, []);
  const client = await openSse(`${first.url}/v1/runs`, {
    body: { agent: 'shop', input: 'hello' },
    headers: as('alice'),
  });
  await client.waitFor((f) => f.event === 'start');
  const runId = (client.events[0] as RunEvent).runId;
  await first.close();
  client.destroy();
  return runId;
}

describe('durable runs over HTTP: a run outlives its server', () => {
  it('a paused run is read, replayed, approved and completed by the next server; the tool runs once', async () => {
    const store = memoryRunStore();
    const placed: string[] = [];
    const script = [act('place_order', { item: 'milk' }), final('ordered milk')];
    const first = await boot(store, scriptModel(script), placed);
    const started = await postJson(
      `${first.url}/v1/runs`,
      { agent: 'shop', input: 'order milk' },
      as('alice'),
    );
    expect(started.body.record).toMatchObject({ status: 'awaiting_approval' });
    const runId = (started.body.record as { run_id: string }).run_id;
    await first.close(); // the server goes away; only the store is left

    const second = await boot(store, scriptModel(script.slice(1)), placed);
    expect(second.report).toEqual({ resumed: 0, rebuiltPaused: 1, interrupted: 0, failed: 0 });
    // Another user: the same 404 as a run that does not exist.
    expect((await fetch(`${second.url}/v1/runs/${runId}`, { headers: as('mallory') })).status).toBe(404);
    const read = await (await fetch(`${second.url}/v1/runs/${runId}`, { headers: as('alice') })).json();
    expect(read).toMatchObject({ status: 'awaiting_approval', run_id: runId });
    const replay = await openSse(`${second.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: as('alice'),
    });
    await replay.ended;
    expect(shape(replay.events)).toEqual(['start', 'step:reason', 'step:act', 'approval', 'done']);
    const approval = replay.events.find((e): e is ApprovalEvent => e.type === 'approval') as ApprovalEvent;
    const approved = await postJson(
      `${second.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: approval.inputHash, approve: true },
      as('alice'),
    );
    expect(approved.status).toBe(200);
    expect(approved.body.record).toMatchObject({ status: 'success', final_answer: 'ordered milk' });
    expect(placed).toEqual(['milk']);
    // Last-Event-ID across the pause, after the restart.
    const rest = await openSse(`${second.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': '4' },
    });
    await rest.ended;
    expect(shape(rest.events)).toEqual(['resume', 'step:observe', 'step:reason', 'message', 'done']);
    expect(rest.events[0]?.seq).toBe(5);
    const stored = await store.load(runId);
    expect(stored?.run.status).toBe('success');
    expect(stored?.events.map((e) => e.seq)).toEqual(stored?.events.map((_, i) => i));
  });

  it('a run that was running is resumed at start from its last completed step (the model call is repeated)', async () => {
    const store = memoryRunStore();
    const placed: string[] = [];
    const runId = await leftRunning(store);

    const second = await boot(store, scriptModel([final('hello to you')]), placed);
    expect(second.report).toMatchObject({ resumed: 1 });
    const entry = second.server.runs.get(runId, 'alice');
    expect(entry).toBeDefined();
    const record = await entry?.ended;
    expect(record).toMatchObject({ status: 'success', final_answer: 'hello to you' });
    const stored = await store.load(runId);
    expect(shape(stored?.events ?? [])).toEqual(['start', 'step:reason', 'message', 'done']);
  });

  it('with resuming off, a run that was running ends stopped/interrupted with a notice; cancel and answer see it ended', async () => {
    const store = memoryRunStore();
    const placed: string[] = [];
    const runId = await leftRunning(store);

    const second = await boot(store, stuckModel, placed, false);
    expect(second.report).toEqual({ resumed: 0, rebuiltPaused: 0, interrupted: 1, failed: 0 });
    const read = (await (
      await fetch(`${second.url}/v1/runs/${runId}`, { headers: as('alice') })
    ).json()) as Record<string, unknown>;
    expect(read, JSON.stringify(read)).toMatchObject({ status: 'stopped', stop_reason: 'interrupted' });
    expect(String(read.final_answer)).toMatch(/resuming interrupted runs is turned off/);
    const cancelled = await postJson(`${second.url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(cancelled.body).toMatchObject({ status: 'stopped' });
  });
});

describe('a run found running after a restart is rebuilt once', () => {
  /** A model that counts its calls and answers after a moment. */
  function countingModel() {
    const calls: number[] = [];
    const model: Model = {
      name: 'counting',
      call: async (request) => {
        calls.push(request.step);
        await new Promise((r) => setTimeout(r, 20));
        return { ok: true, text: final('hello to you'), usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    return { model, calls };
  }

  it('recover() called twice at once, and a request for the run meanwhile, rebuild it once', async () => {
    const store = memoryRunStore();
    const runId = await leftRunning(store);
    const { model, calls } = countingModel();
    const second = await start({ agents: { shop: { model, tools: [] } }, durable: { store } });
    servers.push(second);
    const [a, b, read] = await Promise.all([
      second.server.recover(),
      second.server.recover(),
      fetch(`${second.url}/v1/runs/${runId}`, { headers: as('alice') }),
    ]);
    expect(read.status).toBe(200);
    await second.server.runs.get(runId, 'alice')?.ended;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual([1]); // one rebuilt run asked the model, not two
    const stored = await store.load(runId);
    expect(shape(stored?.events ?? [])).toEqual(['start', 'step:reason', 'message', 'done']);
    expect(b).toBe(a); // the second call waited for the first recovery
    expect(a?.resumed ?? 0).toBeLessThanOrEqual(1);
  });

  it('with resuming off, a request that comes before recover() does not resume the run', async () => {
    const store = memoryRunStore();
    const runId = await leftRunning(store);
    const { model, calls } = countingModel();
    const second = await start({ agents: { shop: { model, tools: [] } }, durable: { store, resume: false } });
    servers.push(second);
    const read = (await (
      await fetch(`${second.url}/v1/runs/${runId}`, { headers: as('alice') })
    ).json()) as Record<string, unknown>;
    expect(read).toMatchObject({ status: 'stopped', stop_reason: 'interrupted' });
    expect(calls).toEqual([]);
    expect(await second.server.recover()).toEqual({
      resumed: 0,
      rebuiltPaused: 0,
      interrupted: 0,
      failed: 0,
    });
  });
});

describe('a run whose row was stored but not its start (killed at once, or never queued)', () => {
  it('with resuming off ends stopped/interrupted with a readable record: its ending starts its log', async () => {
    const store = memoryRunStore();
    const runId = 'row-only-1';
    await store.create({
      runId,
      ownerId: 'alice',
      agent: 'shop',
      conversationId: undefined,
      request: requestRecord({ agent: 'shop', query: 'hello', principal: { id: 'alice' }, options: {} }),
      createdAt: Date.now(),
    });
    const second = await boot(store, stuckModel, [], false);
    expect(second.report).toEqual({ resumed: 0, rebuiltPaused: 0, interrupted: 1, failed: 0 });
    const read = await fetch(`${second.url}/v1/runs/${runId}`, { headers: as('alice') });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      status: 'stopped',
      stop_reason: 'interrupted',
      query: 'hello',
      model: 'none',
      steps: [],
    });
    expect(shape((await store.load(runId))?.events ?? [])).toEqual(['start', 'message', 'done']);
  });
});

describe('the conversation turn of a run ended interrupted after a restart', () => {
  it('says how the run ended, not running', async () => {
    const store = memoryRunStore();
    const conversations = { store: memoryConversationStore() };
    const first = await start({
      agents: { shop: { model: stuckModel, tools: [] } },
      durable: { store },
      conversations,
    });
    servers.push(first);
    const client = await openSse(`${first.url}/v1/runs`, {
      body: { agent: 'shop', input: 'hello', conversationId: 'chat-1' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    await first.close();
    client.destroy();

    const second = await start({
      agents: { shop: { model: stuckModel, tools: [] } },
      durable: { store, resume: false },
      conversations,
    });
    servers.push(second);
    expect(await second.server.recover()).toMatchObject({ interrupted: 1 });
    await new Promise((r) => setTimeout(r, 20));
    const chat = (await (
      await fetch(`${second.url}/v1/conversations/chat-1`, { headers: as('alice') })
    ).json()) as { turns: { status: string }[] };
    expect(chat.turns.map((t) => t.status)).toEqual(['stopped']);
  });
});

describe('a paused run read back on demand', () => {
  it('is answerable by the first request that finds it (no recover() yet): the rebuild has reached its pause', async () => {
    const store = memoryRunStore();
    const placed: string[] = [];
    const script = [act('place_order', { item: 'milk' }), final('ordered milk')];
    const first = await boot(store, scriptModel(script), placed);
    const started = await postJson(
      `${first.url}/v1/runs`,
      { agent: 'shop', input: 'order milk' },
      as('alice'),
    );
    const runId = (started.body.record as { run_id: string }).run_id;
    const events = started.body.events as RunEvent[];
    const approval = events.find((e): e is ApprovalEvent => e.type === 'approval') as ApprovalEvent;
    await first.close();

    const second = await start({
      agents: { shop: { model: scriptModel(script.slice(1)), tools: [orderTool(placed)] } },
      durable: { store },
    });
    servers.push(second);
    const approved = await postJson(
      `${second.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: approval.inputHash, approve: true },
      as('alice'),
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.record).toMatchObject({ status: 'success' });
    expect(placed).toEqual(['milk']);
  });
  it('recover() does not wait for a paused run whose approval expired meanwhile (it goes on)', async () => {
    const store = memoryRunStore();
    const placed: string[] = [];
    const script = [act('place_order', { item: 'milk' }), final('ordered milk')];
    const agent = (model: Model) => ({ model, tools: [orderTool(placed)], limits: { approvalTtlMs: 100 } });
    const first = await start({ agents: { shop: agent(scriptModel(script)) }, durable: { store } });
    servers.push(first);
    const started = await postJson(
      `${first.url}/v1/runs`,
      { agent: 'shop', input: 'order milk' },
      as('alice'),
    );
    expect(started.body.record).toMatchObject({ status: 'awaiting_approval' });
    await first.close();
    await new Promise((r) => setTimeout(r, 150)); // the approval expires while no server runs

    const second = await start({ agents: { shop: agent(stuckModel) }, durable: { store } });
    servers.push(second);
    const from = Date.now();
    expect(await second.server.recover()).toMatchObject({ rebuiltPaused: 1 });
    expect(Date.now() - from).toBeLessThan(1_000); // not stopWaitMs (2 s) per such run
    expect(placed).toEqual([]);
  });
});

describe('close() of a server with a run store', () => {
  it('stops its runs where their stored logs are: nothing runs unrecorded after close, the next server does it once', async () => {
    const store = memoryRunStore();
    const placed: string[] = [];
    const script = [act('place_order', { item: 'milk' }), final('ordered milk')];
    // Answers by step after a moment: the server closes during the first model call.
    const slow: Model = {
      name: 'slow',
      call: async (request) => {
        await new Promise((r) => setTimeout(r, 100));
        return {
          ok: true,
          text: script[request.step - 1] ?? final('?'),
          usage: { inputTokens: 1, outputTokens: 1 },
        };
      },
    };
    const tools = (p: string[]) => [{ ...orderTool(p), needsApproval: false }];
    const first = await start({
      agents: { shop: { model: slow, tools: tools(placed) } },
      durable: { store },
    });
    servers.push(first);
    const client = await openSse(`${first.url}/v1/runs`, {
      body: { agent: 'shop', input: 'order milk' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    const runId = (client.events[0] as RunEvent).runId;
    await first.server.close();
    await new Promise((r) => setTimeout(r, 400));
    // Whatever the closed server's run did was not stored: it must not have done anything.
    expect(placed).toEqual([]);
    client.destroy();

    const second = await start({
      agents: { shop: { model: slow, tools: tools(placed) } },
      durable: { store },
    });
    servers.push(second);
    expect(await second.server.recover()).toMatchObject({ resumed: 1 });
    const record = await second.server.runs.get(runId, 'alice')?.ended;
    expect(record).toMatchObject({ status: 'success' });
    expect(placed).toEqual(['milk']); // ordered once across both servers
  });
});

describe('retention', () => {
  it('runs that ended more than retentionDays ago are swept at recover (and counted); paused and recent ones stay', async () => {
    const store = memoryRunStore();
    const day = 86_400_000;
    const now = Date.parse('2026-12-01T00:00:00Z');
    const done = (runId: string, at: number, status: 'success' | 'awaiting_input'): RunEvent => ({
      type: 'done',
      status,
      steps: 1,
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 1,
      runId,
      seq: 0,
      at,
    });
    for (const [runId, age, status] of [
      ['old', 31, 'success'],
      ['recent', 29, 'success'],
      ['old-but-paused', 40, 'awaiting_input'],
    ] as const) {
      await store.create({ runId, ownerId: 'alice', agent: 'gone', request: {}, createdAt: now - age * day });
      await store.append(runId, [done(runId, now - age * day, status)]);
    }
    const started = await start({
      agents: {},
      durable: { store, retentionDays: 30 },
      deps: { now: () => now },
    });
    servers.push(started);
    await started.server.recover();
    await new Promise((r) => setTimeout(r, 50)); // the sweep runs beside the start
    expect(await store.load('old')).toBeUndefined();
    expect(await store.load('recent')).toBeDefined();
    expect(await store.load('old-but-paused')).toBeDefined();
    const metrics = await (await fetch(`${started.url}/metrics`)).text();
    expect(metrics).toMatch(/^reins_runs_swept_total 1$/m);
  });
});
