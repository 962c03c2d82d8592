import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewStoredRun, RunEvent, RunStore } from '../../src/index.js';

/** What a contract suite is given: a store, and how to let go of it after each test. */
export interface OpenedRunStore {
  readonly store: RunStore;
  close(): Promise<void>;
}

const T0 = 1_796_137_877_768;
let ids = 0;
const newId = (): string => `run-${++ids}`;

function newRun(overrides: Partial<NewStoredRun> = {}): NewStoredRun {
  return {
    runId: newId(),
    ownerId: 'owner-a',
    agent: 'kitchen',
    conversationId: 'conv-1',
    request: {
      query: '今晚吃什么？',
      principal: { id: 'owner-a', roles: ['member'] },
      options: { maxSteps: 4 },
    },
    createdAt: T0,
    ...overrides,
  };
}

/** Events of the real shapes; `at` grows by fractional ms as a live run's would. */
const ev = {
  start: (runId: string, seq: number, at = T0 + seq * 1.37) =>
    ({
      type: 'start',
      agent: 'react',
      model: 'demo',
      demo: true,
      query: '今晚吃什么？',
      tools: ['fridge_items'],
      limits: { maxSteps: 4 },
      timeouts: { toolBudgetMs: 22_500 },
      runId,
      seq,
      at,
    }) as unknown as RunEvent,
  observe: (runId: string, seq: number, result: unknown, at = T0 + seq * 1.37) =>
    ({
      type: 'step',
      phase: 'observe',
      index: 1,
      startedAt: at - 0.4697265625,
      endedAt: at,
      durationMs: 0.4697265625,
      actId: `act-${seq}`,
      observation: {
        actId: `act-${seq}`,
        tool: 'fridge_items',
        status: 'ok',
        result,
        source: 'tool:fridge_items',
      },
      runId,
      seq,
      at,
    }) as unknown as RunEvent,
  resume: (runId: string, seq: number, at = T0 + seq * 1.37) =>
    ({ type: 'resume', actId: 'act-1', outcome: { approved: true }, runId, seq, at }) as unknown as RunEvent,
  done: (runId: string, seq: number, status: string, at = T0 + seq * 1.37) =>
    ({
      type: 'done',
      status,
      steps: 1,
      usage: { inputTokens: 10, outputTokens: 2 },
      durationMs: at - T0,
      runId,
      seq,
      at,
    }) as unknown as RunEvent,
};

/** A run's events 0..n-1: start, observations with varied results, nothing else. */
function someEvents(runId: string, n: number): RunEvent[] {
  return Array.from({ length: n }, (_, seq) =>
    seq === 0 ? ev.start(runId, 0) : ev.observe(runId, seq, { items: [{ name: `菜${seq}`, n: seq / 3 }] }),
  );
}

/**
 * The `RunStore` contract (see `run-store.ts`), as vitest blocks: call it from a test file
 * with a way to open the implementation under test. Each test opens a store and closes it;
 * `open` must give an empty store (the tests count what is listed and swept).
 */
export function runStoreContract(name: string, open: () => Promise<OpenedRunStore>): void {
  describe(`RunStore contract: ${name}`, () => {
    let opened: OpenedRunStore;
    let store: RunStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.store;
    });
    afterEach(async () => {
      await opened.close();
    });

    it('creates a run: running, no events, updatedAt = createdAt, its request read back deep-equal', async () => {
      const big = 'x'.repeat(200_000);
      const run = newRun({
        request: { query: '番茄炒蛋 🍅 "quoted" \\ \n', nested: { a: [1, 2.5, { b: null }] }, big },
      });
      await store.create(run);
      const loaded = await store.load(run.runId);
      expect(loaded).toEqual({
        run: { ...run, status: 'running', updatedAt: T0, eventCount: 0 },
        events: [],
      });
      expect(loaded?.run.request['big']).toHaveLength(200_000);
    });

    it('refuses to create an id that exists (a programmer mistake)', async () => {
      const run = newRun();
      await store.create(run);
      await expect(store.create({ ...run, agent: 'other' })).rejects.toThrow();
      expect((await store.load(run.runId))?.run.agent).toBe('kitchen');
    });

    it('loads an unknown id as undefined', async () => {
      expect(await store.load('no-such-run')).toBeUndefined();
    });

    it('stores events and loads them deep-equal: floats, unicode, nested objects, large strings, new event types', async () => {
      const run = newRun();
      await store.create(run);
      const events = [
        ev.start(run.runId, 0, T0 + 0.1 + 0.2),
        ev.observe(run.runId, 1, {
          items: [{ name: '鸡蛋 🥚', quantity: 10, expiresOn: null }],
          nested: { deep: { er: [[], {}] } },
        }),
        ev.observe(run.runId, 2, { items: [{ name: '鸡蛋 🥚', quantity: 9 }], big: '长'.repeat(100_000) }),
        ev.resume(run.runId, 3),
        ev.done(run.runId, 4, 'success', 1_796_137_877_821.2944),
      ];
      await store.append(run.runId, events.slice(0, 2));
      await store.append(run.runId, events.slice(2));
      const loaded = await store.load(run.runId);
      expect(loaded?.events).toEqual(events);
      expect(loaded?.events.map((e) => e.at)).toStrictEqual(events.map((e) => e.at));
    });

    it('keeps what was appended, whatever the caller does with its objects afterwards', async () => {
      const run = newRun();
      await store.create(run);
      const event = ev.observe(run.runId, 0, { items: ['a'] });
      await store.append(run.runId, [event]);
      (event as unknown as { observation: { result: { items: string[] } } }).observation.result.items.push(
        'b',
      );
      const loaded = await store.load(run.runId);
      expect(loaded?.events[0]).toEqual(ev.observe(run.runId, 0, { items: ['a'] }));
    });

    it('skips events whose seq is stored already (a retried batch) and stores the rest', async () => {
      const run = newRun();
      await store.create(run);
      const events = someEvents(run.runId, 4);
      await store.append(run.runId, events.slice(0, 2));
      const changedDuplicate = ev.observe(run.runId, 1, { items: ['a different retry'] });
      await store.append(run.runId, [changedDuplicate, ...events.slice(2)]);
      await store.append(run.runId, events.slice(0, 4)); // all stored: nothing to do
      const loaded = await store.load(run.runId);
      expect(loaded?.events).toEqual(events);
      expect(loaded?.run.eventCount).toBe(4);
    });

    it('rejects a batch that would leave a gap with a RangeError, storing none of it', async () => {
      const run = newRun();
      await store.create(run);
      const events = someEvents(run.runId, 6);
      await store.append(run.runId, events.slice(0, 2));
      await expect(store.append(run.runId, [events[2] as RunEvent, events[4] as RunEvent])).rejects.toThrow(
        RangeError,
      );
      await expect(store.append(run.runId, events.slice(3))).rejects.toThrow(RangeError);
      const loaded = await store.load(run.runId);
      expect(loaded?.events).toEqual(events.slice(0, 2));
      expect(loaded?.run.eventCount).toBe(2);
      await store.append(run.runId, events.slice(2)); // the run goes on once the gap is filled
      expect((await store.load(run.runId))?.events).toEqual(events);
    });

    it('rejects appending to a run that does not exist', async () => {
      await expect(store.append('no-such-run', someEvents('no-such-run', 1))).rejects.toThrow();
      expect(await store.load('no-such-run')).toBeUndefined();
    });

    it('rejects a batch holding another run’s event, storing none of it', async () => {
      const run = newRun();
      await store.create(run);
      const stray = ev.observe('other-run', 1, {});
      await expect(store.append(run.runId, [ev.start(run.runId, 0), stray])).rejects.toThrow();
      expect((await store.load(run.runId))?.run.eventCount).toBe(0);
    });

    it('status and updatedAt follow the last event: running, a pause, running again after it, the end', async () => {
      const run = newRun();
      await store.create(run);
      const id = run.runId;
      await store.append(id, [ev.start(id, 0)]);
      expect((await store.load(id))?.run).toMatchObject({ status: 'running', updatedAt: T0, eventCount: 1 });
      await store.append(id, [ev.done(id, 1, 'awaiting_approval', T0 + 5.25)]);
      expect((await store.load(id))?.run).toMatchObject({
        status: 'awaiting_approval',
        updatedAt: T0 + 5.25,
      });
      await store.append(id, [ev.resume(id, 2, T0 + 60_000.5)]);
      expect((await store.load(id))?.run).toMatchObject({ status: 'running', updatedAt: T0 + 60_000.5 });
      await store.append(id, [ev.done(id, 3, 'awaiting_input', T0 + 60_001)]);
      expect((await store.load(id))?.run.status).toBe('awaiting_input');
      await store.append(id, [ev.resume(id, 4, T0 + 70_000), ev.done(id, 5, 'cancelled', T0 + 70_001.75)]);
      expect((await store.load(id))?.run).toMatchObject({
        status: 'cancelled',
        updatedAt: T0 + 70_001.75,
        eventCount: 6,
      });
    });

    it('lists unfinished runs (running or paused) oldest first, without ended ones', async () => {
      const base = T0 + 10_000_000;
      const paused = newRun({ createdAt: base + 2 });
      const running = newRun({ createdAt: base + 1 });
      const ended = newRun({ createdAt: base });
      const fresh = newRun({ createdAt: base + 3 });
      for (const r of [paused, running, ended, fresh]) await store.create(r);
      await store.append(paused.runId, [
        ev.start(paused.runId, 0),
        ev.done(paused.runId, 1, 'awaiting_input'),
      ]);
      await store.append(running.runId, [ev.start(running.runId, 0)]);
      await store.append(ended.runId, [ev.start(ended.runId, 0), ev.done(ended.runId, 1, 'error')]);
      const unfinished = await store.unfinished();
      expect(unfinished.map((r) => r.runId)).toEqual([running.runId, paused.runId, fresh.runId]);
      expect(unfinished.map((r) => r.status)).toEqual(['running', 'awaiting_input', 'running']);
    });

    it('sweeps only ended runs last updated before the cutoff, with their events', async () => {
      const cutoff = T0 + 1_000;
      const oldEnded = newRun();
      const atCutoff = newRun();
      const newEnded = newRun();
      const oldPaused = newRun();
      const oldRunning = newRun();
      for (const r of [oldEnded, atCutoff, newEnded, oldPaused, oldRunning]) await store.create(r);
      await store.append(oldEnded.runId, [
        ev.start(oldEnded.runId, 0),
        ev.done(oldEnded.runId, 1, 'success', cutoff - 0.5),
      ]);
      await store.append(atCutoff.runId, [
        ev.start(atCutoff.runId, 0),
        ev.done(atCutoff.runId, 1, 'stopped', cutoff),
      ]);
      await store.append(newEnded.runId, [
        ev.start(newEnded.runId, 0),
        ev.done(newEnded.runId, 1, 'success', cutoff + 1),
      ]);
      await store.append(oldPaused.runId, [
        ev.start(oldPaused.runId, 0),
        ev.done(oldPaused.runId, 1, 'awaiting_approval', T0 + 1),
      ]);
      await store.append(oldRunning.runId, [ev.start(oldRunning.runId, 0)]);
      expect(await store.sweep(0)).toBe(0); // nothing ended before the epoch
      expect(await store.sweep(cutoff)).toBe(1);
      expect(await store.load(oldEnded.runId)).toBeUndefined();
      for (const kept of [atCutoff, newEnded, oldPaused, oldRunning])
        expect((await store.load(kept.runId))?.run.runId).toBe(kept.runId);
      expect(await store.sweep(cutoff)).toBe(0);
      // The swept id is free again (its events went with it).
      await store.create(oldEnded);
      expect((await store.load(oldEnded.runId))?.events).toEqual([]);
    });

    it('deletes a conversation’s runs of its owner only, and says how many', async () => {
      const conversationId = newId();
      const mine = [newRun({ conversationId }), newRun({ conversationId })];
      const theirs = newRun({ conversationId, ownerId: 'owner-b' });
      const otherConversation = newRun({ conversationId: newId() });
      for (const r of [...mine, theirs, otherConversation]) await store.create(r);
      await store.append(mine[0]?.runId ?? '', someEvents(mine[0]?.runId ?? '', 3));
      expect(await store.deleteConversation(conversationId, 'owner-a')).toBe(2);
      for (const r of mine) expect(await store.load(r.runId)).toBeUndefined();
      expect((await store.load(theirs.runId))?.run.ownerId).toBe('owner-b');
      expect((await store.load(otherConversation.runId))?.run.runId).toBe(otherConversation.runId);
      expect(await store.deleteConversation(conversationId, 'owner-a')).toBe(0);
    });

    it('an empty batch changes nothing', async () => {
      const run = newRun();
      await store.create(run);
      await store.append(run.runId, []);
      expect((await store.load(run.runId))?.run).toMatchObject({
        status: 'running',
        eventCount: 0,
        updatedAt: T0,
      });
    });
  });
}
