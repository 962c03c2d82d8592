import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildRunRecord, memoryRunStore, type ApprovalEvent, type RunEvent, type RunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import type { SharedRole } from '../src/index.js';
import { RemoteRun } from '../src/shared/remote-run.js';
import type { RunBus } from '../src/shared/run-bus.js';
import { act, as, final, openSse, postJson, shape, start } from './helpers.js';
import { claimsAgent } from './claims-agent.js';
import { cluster, REDIS_URL, sharedInstances, storedStatus } from './shared-cluster.js';

const { started, instance } = sharedInstances();

describe('shared mode: API instances queue runs, workers execute them', () => {
  it('a run started on A is executed by a worker and streamed from A and, with Last-Event-ID, from B', async () => {
    const c = cluster([{ text: final('hello from the worker'), delayMs: 100 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');

    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'say hello' },
      headers: as('alice'),
    });
    await client.ended;
    expect(shape(client.events)).toEqual(['start', 'step:reason', 'message', 'done']);
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    const runId = client.events[0]?.runId ?? '';

    // B never saw the run: it reads it from the store, from the event after seq 0.
    const replay = await openSse(`${b.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': '0' },
    });
    await replay.ended;
    expect(replay.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(replay.events).toEqual(client.events.slice(1));
    // Someone else's run: the 404 of a missing one, on every instance.
    expect((await fetch(`${b.url}/v1/runs/${runId}`, { headers: as('mallory') })).status).toBe(404);
  });

  it('a worker serves no API: /v1 is not there, /health reports the queue', async () => {
    const c = cluster([]);
    const w = await instance(c, 'worker');
    expect((await fetch(`${w.url}/v1/agents`, { headers: as('alice') })).status).toBe(404);
    const health = (await (await fetch(`${w.url}/health`)).json()) as { checks: Record<string, unknown> };
    expect(health.checks['queue']).toMatchObject({ status: 'up', role: 'worker', holding: 0 });
  });

  it('a paused run is approved on another instance; a worker rebuilds it and the tool runs once', async () => {
    const c = cluster([act('place_order', { item: 'milk' }), final('ordered milk')]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    await instance(c, 'worker');

    const paused = await postJson(`${a.url}/v1/runs`, { agent: 'shop', input: 'order milk' }, as('alice'));
    expect(paused.body.record).toMatchObject({ status: 'awaiting_approval' });
    const events = paused.body.events as RunEvent[];
    const approval = events.find((e): e is ApprovalEvent => e.type === 'approval');
    if (approval === undefined) throw new Error('no approval event');
    const runId = approval.runId;

    // The wrong user is the 404 of a missing run; a wrong hash is refused by the worker, as data.
    const wrong = await postJson(
      `${b.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: 'f'.repeat(64), approve: true },
      as('alice'),
    );
    expect(wrong.status).toBe(400);
    expect(c.placed).toEqual([]);

    const done = await postJson(
      `${b.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: approval.inputHash, approve: true },
      as('alice'),
    );
    expect(done.status).toBe(200);
    expect(done.body.record).toMatchObject({ status: 'success', final_answer: 'ordered milk' });
    expect(c.placed).toEqual(['milk']);
    // A second approval of the same act: nothing is pending any more.
    const again = await postJson(
      `${a.url}/v1/runs/${runId}/approve`,
      { actId: approval.actId, inputHash: approval.inputHash, approve: true },
      as('alice'),
    );
    expect(again.status).toBe(404);
    expect(c.placed).toEqual(['milk']);
    const stored = await c.store.load(runId);
    expect(stored?.run.status).toBe('success');
  });

  it('a cancel sent to B stops the run a worker holds for a client on A', async () => {
    const c = cluster([{ text: final('too late'), delayMs: 30_000 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'take your time' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start'); // a worker holds it (in its model call)
    const runId = client.events[0]?.runId ?? '';
    const sent = performance.now();
    const cancelled = await postJson(`${b.url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(performance.now() - sent).toBeLessThan(2_000);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    await client.ended;
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
  });

  it('a client leaving instance A cancels its run on the worker', async () => {
    const c = cluster([{ text: final('too late'), delayMs: 30_000 }]);
    const a = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'take your time' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start'); // a worker holds it (in its model call)
    const runId = client.events[0]?.runId ?? '';
    client.destroy();
    expect(await storedStatus(c.store, runId, 'cancelled')).toBe('cancelled');
  });

  it('draining an API instance ends its streams with a reconnect event; the run goes on and is followed from B', async () => {
    const c = cluster([{ text: final('made it'), delayMs: 1_500 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'slowly' },
      headers: as('alice'),
    });
    // Drained during the model call (a `step` event only comes when the call has ended, and the
    // run's `done` right after it: waiting for it raced the end of the run).
    await client.waitFor((f) => f.event === 'start');
    await a.server.drain();
    const reconnect = await client.waitFor((f) => f.event === 'reconnect');
    const info = JSON.parse(reconnect.data ?? '{}') as { code: string; lastEventId: number };
    expect(info.code).toBe('SERVER_DRAINING');
    const runId = client.events[0]?.runId ?? '';
    const rest = await openSse(`${b.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': String(info.lastEventId) },
    });
    await rest.ended;
    expect([...client.events, ...rest.events].map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(rest.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });

  it('the stop phrase sent to B cancels the runs workers hold for the same user (and only theirs)', async () => {
    const c = cluster([
      { text: final('late 1'), delayMs: 30_000 },
      { text: final('late 2'), delayMs: 30_000 },
      { text: final('late 3'), delayMs: 30_000 },
    ]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    const alice1 = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'one' },
      headers: as('alice'),
    });
    const alice2 = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'two' },
      headers: as('alice'),
    });
    const bob = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'three' },
      headers: as('bob'),
    });
    await Promise.all([alice1, alice2, bob].map((client) => client.waitFor((f) => f.event === 'start')));
    const stopped = await postJson(`${b.url}/v1/runs`, { agent: 'shop', input: '停止' }, as('alice'));
    expect(stopped.body).toMatchObject({ stopped: true });
    expect((stopped.body.cancelled as { status: string }[]).map((r) => r.status)).toEqual([
      'cancelled',
      'cancelled',
    ]);
    await Promise.all([alice1.ended, alice2.ended]);
    const bobRun = bob.events[0]?.runId ?? '';
    expect((await c.store.load(bobRun))?.run.status).toBe('running');
    bob.destroy();
  });

  it('an approval nobody answers expires while no worker holds the run: a queued job makes the run go on', async () => {
    const c = cluster([act('place_order', { item: 'milk' }), final('not ordered: the approval expired')]);
    const a = await instance(c, 'api', { approvalTtlMs: 300 });
    await instance(c, 'worker', { approvalTtlMs: 300 });
    const paused = await postJson(`${a.url}/v1/runs`, { agent: 'shop', input: 'order milk' }, as('alice'));
    expect(paused.body.record).toMatchObject({ status: 'awaiting_approval' });
    const runId = (paused.body.record as { run_id: string }).run_id;
    const deadline = Date.now() + 8_000;
    let loaded = await c.store.load(runId);
    while (loaded?.run.status === 'awaiting_approval' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      loaded = await c.store.load(runId);
    }
    expect(loaded?.run.status).toBe('success');
    expect(loaded?.events.find((e) => e.type === 'resume')).toMatchObject({ outcome: { kind: 'expired' } });
    expect(c.placed).toEqual([]); // an expired approval never runs the call
  });

  it("a plan run's question is answered on another instance; a worker rebuilds the plan and finishes it", async () => {
    const store = memoryRunStore();
    const prefix = `reins-test-${randomUUID().slice(0, 8)}:`;
    const { agent, queried } = claimsAgent(); // one agent (one script) for every instance
    const boot = async (role: SharedRole) => {
      const one = await start({
        agents: { claims: agent },
        durable: { store },
        redisPrefix: prefix,
        shared: { role, redisUrl: REDIS_URL, lockMs: 2_000 },
      });
      started.push(one);
      await one.server.recover();
      return one;
    };
    const a = await boot('api');
    const b = await boot('api');
    await boot('worker');
    const asked = await postJson(
      `${a.url}/v1/runs`,
      { agent: 'claims', input: '把张三在协和医院的住院记录同步到理赔系统' },
      as('alice'),
    );
    expect(asked.body.record).toMatchObject({ status: 'awaiting_input' });
    const question = (asked.body.events as RunEvent[]).find((e) => e.type === 'clarify') as RunEvent & {
      questionId: string;
    };
    const wrong = await postJson(
      `${b.url}/v1/runs/${question.runId}/answer`,
      { questionId: 'not-this-one', answer: 'WHXH001' },
      as('alice'),
    );
    expect(wrong.status).toBe(404);
    const answered = await postJson(
      `${b.url}/v1/runs/${question.runId}/answer`,
      { questionId: question.questionId, answer: 'WHXH001' },
      as('alice'),
    );
    expect(answered.status).toBe(200);
    expect(answered.body.record).toMatchObject({ status: 'success', final_answer: '2 stays synced' });
    expect(queried).toEqual([{ patient_id: 'zhangsan', hospital_code: 'WHXH001' }]);
  });

  it('a cancel sent while the run waits in the queue (no worker yet) is not lost: the worker that takes it ends it cancelled', async () => {
    const c = cluster([{ text: final('too late'), delayMs: 30_000 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'take your time' },
      headers: as('alice'),
    });
    const runId = String(client.response.headers['x-run-id']);
    expect((await c.store.load(runId))?.events).toEqual([]); // queued: nobody has started it
    const cancel = await postJson(`${b.url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(cancel.status).toBe(200);
    // The cancel was published while no worker listened: only its flag is left for the worker.
    await instance(c, 'worker');
    expect(await storedStatus(c.store, runId, 'cancelled')).toBe('cancelled');
    await client.ended;
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
  });

  it('a paused run cancelled on another instance ends cancelled (a worker takes it to do so); the call is never made', async () => {
    const c = cluster([act('place_order', { item: 'milk' }), final('never')]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    const paused = await postJson(`${a.url}/v1/runs`, { agent: 'shop', input: 'order milk' }, as('alice'));
    const runId = (paused.body.record as { run_id: string }).run_id;
    const cancelled = await postJson(`${b.url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    expect((await c.store.load(runId))?.run.status).toBe('cancelled');
    expect(c.placed).toEqual([]);
  });

  it('a draining worker hands its run back: another worker finishes it, and the client sees no trace of the hand-back', async () => {
    const c = cluster([
      { text: final('finished elsewhere'), delayMs: 800 },
      { text: final('finished elsewhere'), delayMs: 800 },
    ]);
    const a = await instance(c, 'api');
    const first = await instance(c, 'worker', { drainGraceMs: 100 });
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'slowly' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    await instance(c, 'worker');
    await first.server.drain(); // within 100 ms the run is handed back, mid model call
    await client.ended;
    expect(client.events.filter((e) => e.type === 'done')).toEqual([
      expect.objectContaining({ status: 'success' }),
    ]);
    expect(client.events.map((e) => e.seq)).toEqual(client.events.map((_, i) => i));
    const stored = await c.store.load(client.events[0]?.runId ?? '');
    expect(
      stored?.events.filter((e) => e.type === 'done').map((e) => (e as { status: string }).status),
    ).toEqual(['success']);
  });

  it('an API instance closing does not cancel the runs it was streaming: they finish on their worker', async () => {
    const c = cluster([{ text: final('finished anyway'), delayMs: 500 }]);
    const a = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'slowly' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    const runId = client.events[0]?.runId ?? '';
    await a.close(); // server.close() then the HTTP server: the client is cut off
    const deadline = Date.now() + 5_000;
    let status = (await c.store.load(runId))?.run.status;
    while (status === 'running' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      status = (await c.store.load(runId))?.run.status;
    }
    expect(status).toBe('success');
  });

  it('Redis unreachable: a new run is refused with 503 and is not left running in the store', async () => {
    const memory = memoryRunStore();
    const appended: RunEvent[][] = [];
    const store: RunStore = {
      ...memory,
      append: (runId, events) => (appended.push([...events]), memory.append(runId, events)),
    };
    const down = await start({
      agents: { shop: { model: scriptModel([final('never')]), tools: [] } },
      durable: { store },
      shared: { role: 'api', redisUrl: 'redis://127.0.0.1:1' },
    });
    started.push(down);
    const sent = performance.now();
    const refused = await postJson(`${down.url}/v1/runs`, { agent: 'shop', input: 'hello' }, as('alice'));
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(performance.now() - sent).toBeLessThan(5_000);
    const [left] = await store.unfinished();
    expect(left).toBeUndefined();
    // Its log reads as a record: the ending starts it from what was asked (nothing ran).
    expect(appended).toHaveLength(1);
    expect(buildRunRecord(appended[0] ?? [])).toMatchObject({
      status: 'stopped',
      stop_reason: 'interrupted',
      query: 'hello',
      agent: 'shop',
      steps: [],
    });
  });
});

describe('RemoteRun: the bus is a doorbell, the store the record', () => {
  const silentBus = { onEvents: () => Promise.resolve(() => undefined) } as unknown as RunBus;
  const event = (runId: string, seq: number): RunEvent =>
    ({
      type: 'message',
      text: `m${seq}`,
      format: 'plain',
      runId,
      seq,
      at: 1_000 + seq,
    }) as unknown as RunEvent;

  it('an event after a gap (a message lost) makes it read the missing ones from the store, in order', async () => {
    const store = memoryRunStore();
    await store.create({ runId: 'r1', ownerId: 'alice', agent: 'shop', request: {}, createdAt: 1 });
    await store.append('r1', [event('r1', 0), event('r1', 1), event('r1', 2)]);
    const remote = await RemoteRun.open('r1', silentBus, store, () => undefined, [event('r1', 0)]);
    await new Promise((r) => setTimeout(r, 10)); // `open` with a known prefix re-reads once
    expect(remote?.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    await store.append('r1', [event('r1', 3), event('r1', 4)]);
    remote?.receive(event('r1', 4)); // 3 never arrived
    await new Promise((r) => setTimeout(r, 10));
    expect(remote?.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    remote?.receive(event('r1', 2)); // a duplicate is ignored
    expect(remote?.events).toHaveLength(5);
  });

  it('a run quiet for longer than the resync window is re-read (a lost last event is found)', async () => {
    const store = memoryRunStore();
    await store.create({ runId: 'r2', ownerId: 'alice', agent: 'shop', request: {}, createdAt: 1 });
    const remote = await RemoteRun.open('r2', silentBus, store, () => undefined, []);
    await store.append('r2', [event('r2', 0)]); // published, never heard
    await remote?.resync(Date.now(), 60_000); // not quiet long enough: nothing read
    expect(remote?.events).toHaveLength(0);
    await remote?.resync(Date.now() + 61_000, 60_000);
    expect(remote?.events.map((e) => e.seq)).toEqual([0]);
  });
});
