import { describe, expect, it } from 'vitest';
import { runAgent, type RunEvent } from 'reins';
import { act, countingTools, final, kinds, stepModel } from './fixtures.js';

describe('a durable run: stored before anyone sees it', () => {
  it('publishes each event only once its sink has stored it, in order, in batches', async () => {
    const stored: RunEvent[] = [];
    const batches: number[] = [];
    let release: (() => void) | undefined;
    const sink = (events: readonly RunEvent[]): Promise<void> =>
      new Promise((resolve) => {
        release = () => {
          batches.push(events.length);
          stored.push(...events);
          resolve();
        };
      });
    const { tools } = countingTools();
    const run = runAgent({
      query: 'look it up',
      model: stepModel([act('lookup', { q: 'eggs' }), final('found')]),
      tools,
      durable: { sink },
    });
    await new Promise((r) => setTimeout(r, 20));
    // The run has started (its start event is waiting in the sink), but readers see nothing yet.
    expect(run.events).toHaveLength(0);
    for (let i = 0; i < 50 && release !== undefined; i++) {
      const go = release;
      release = undefined;
      go();
      await new Promise((r) => setTimeout(r, 5));
      expect(run.events.length).toBeLessThanOrEqual(stored.length); // never ahead of the store
    }
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i));
    expect(run.events).toHaveLength(stored.length);
    expect(kinds(stored)).toEqual(kinds(run.events));
    expect(batches.length).toBeLessThan(stored.length); // one step's events go as one batch
    expect(await run.persisted()).toBe(true);
  });

  it('retries a failing sink in order and, past releaseAfterMs, shows the events anyway and says they are not stored', async () => {
    let failures = 0;
    const errors: unknown[] = [];
    const stored: RunEvent[] = [];
    const sink = async (events: readonly RunEvent[]): Promise<void> => {
      if (failures < 3) {
        failures++;
        throw new Error('database is down');
      }
      stored.push(...events.filter((e) => e.seq >= stored.length));
    };
    const run = runAgent({
      query: 'q',
      model: stepModel([final('fine')]),
      tools: [],
      durable: { sink, releaseAfterMs: 150, onError: (e) => errors.push(e) },
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(errors).toHaveLength(3);
    // The writer never skipped a batch: what reached the store is the whole log, in order.
    for (let i = 0; i < 40 && stored.length < run.events.length; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(stored.map((e) => e.seq)).toEqual(run.events.map((e) => e.seq));
  });

  it('persisted() resolves false while the store has failed past releaseAfterMs', async () => {
    const sink = async (): Promise<void> => {
      throw new Error('down for good');
    };
    const run = runAgent({
      query: 'q',
      model: stepModel([final('x')]),
      tools: [],
      durable: { sink, releaseAfterMs: 100 },
    });
    const record = await run.result; // released: not hung
    expect(record.status).toBe('success');
    expect(await run.persisted()).toBe(false);
    run.cancel();
  });
  it('result, once the store has failed past releaseAfterMs, is the record of the whole log (its end shown unstored)', async () => {
    const sink = async (): Promise<void> => {
      throw new Error('down for good');
    };
    // The answer comes while the writer waits to retry: the end is appended after the release.
    const run = runAgent({
      query: 'q',
      model: stepModel([final('x')], 150),
      tools: [],
      durable: { sink, releaseAfterMs: 100 },
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('x');
    expect(run.events.at(-1)?.type).toBe('done');
    expect(await run.persisted()).toBe(false);
  });
  it('an onError that throws does not stop the writer (the run is still stored and its result settles)', async () => {
    let failures = 0;
    const stored: RunEvent[] = [];
    const sink = async (events: readonly RunEvent[]): Promise<void> => {
      if (failures++ < 1) throw new Error('blip');
      stored.push(...events.filter((e) => e.seq >= stored.length));
    };
    const run = runAgent({
      query: 'q',
      model: stepModel([final('fine')]),
      tools: [],
      durable: {
        sink,
        onError: () => {
          throw new Error('a logger that breaks');
        },
      },
    });
    const record = await Promise.race([run.result, new Promise((r) => setTimeout(() => r('hung'), 2_000))]);
    expect(record).toMatchObject({ status: 'success' });
    expect(stored.at(-1)?.type).toBe('done');
  });
});
