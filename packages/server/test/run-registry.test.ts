import { describe, expect, it } from 'vitest';
import { runAgent, scriptModel, type AgentRun } from 'reins';
import { RunRegistry } from '../src/run-registry.js';

/** A run that ends at once with its answer. */
const quick = (): AgentRun => runAgent({ query: 'hi', model: scriptModel(['{"final":"done"}']), tools: [] });

/** A run whose model answers only after `ms` (or when cancelled). */
const slow = (ms = 60_000): AgentRun =>
  runAgent({ query: 'hi', model: scriptModel([{ text: '{"final":"late"}', delayMs: ms }]), tools: [] });

function track(
  registry: RunRegistry,
  runId: string,
  ownerId: string,
  run: AgentRun,
): { cancelled: () => boolean } {
  let cancelled = false;
  // The registry's cancel is the server's: here it cancels the run and says it was called.
  registry.add(runId, ownerId, 'a', run, () => {
    cancelled = true;
    run.cancel();
  });
  return { cancelled: () => cancelled };
}

describe('RunRegistry: the runs not ended, apart from the ones kept for replay', () => {
  it('counts live and ended runs, lists only the owner’s unfinished ones, and stops only live runs', async () => {
    const registry = new RunRegistry();
    const ended = ['e1', 'e2', 'e3'].map((id) => ({ id, run: quick() }));
    const endedState = ended.map(({ id, run }) => track(registry, id, 'alice', run));
    await Promise.all(ended.map(({ id }) => registry.get(id, 'alice')?.ended));
    const running = track(registry, 'r1', 'alice', slow());
    const others = track(registry, 'r2', 'bob', slow());

    expect(registry.size).toEqual({ live: 2, paused: 0, finished: 3 });
    expect(registry.unfinished('alice').map((e) => e.runId)).toEqual(['r1']);
    expect(registry.unfinished('bob').map((e) => e.runId)).toEqual(['r2']);

    registry.cancelAll();
    expect(running.cancelled()).toBe(true);
    expect(others.cancelled()).toBe(true);
    expect(endedState.some((s) => s.cancelled())).toBe(false); // an ended run is not cancelled again
    await Promise.all(['r1', 'r2'].map((id) => registry.get(id, id === 'r1' ? 'alice' : 'bob')?.ended));
    expect(registry.size).toEqual({ live: 0, paused: 0, finished: 5 });
    expect(registry.unfinished('alice')).toEqual([]);
  });

  it('a dropped run and a run replaced under the same id are no longer counted', async () => {
    const registry = new RunRegistry();
    const dropped = slow();
    track(registry, 'r1', 'alice', dropped);
    track(registry, 'r2', 'alice', slow());
    expect(registry.size).toEqual({ live: 2, paused: 0, finished: 0 });

    registry.drop('r1');
    expect(registry.size).toEqual({ live: 1, paused: 0, finished: 0 });
    expect(registry.unfinished('alice').map((e) => e.runId)).toEqual(['r2']);

    // The same run taken again (shared mode reads it back from the store): one entry, one live run.
    const first = registry.get('r2', 'alice');
    track(registry, 'r2', 'alice', slow());
    expect(registry.get('r2', 'alice')).not.toBe(first);
    expect(registry.size).toEqual({ live: 1, paused: 0, finished: 0 });
    expect(registry.unfinished('alice')).toHaveLength(1);
    registry.cancelAll();
    await registry.get('r2', 'alice')?.ended;
    expect(registry.size).toEqual({ live: 0, paused: 0, finished: 1 });
    first?.run.cancel(); // the replaced and the dropped runs: no longer the registry's to stop
    dropped.cancel();
  });

  it('a run dropped or replaced, once ended, never takes the live run now under its id with it', async () => {
    const registry = new RunRegistry({ maxRetainedRuns: 1 });
    const endOf = async (id: string): Promise<void> => {
      track(registry, id, 'alice', quick());
      await registry.get(id, 'alice')?.ended;
    };
    // Dropped while running and taken back (as shared mode does); then the dropped one ends.
    const old = slow();
    track(registry, 'r1', 'alice', old);
    const dropped = registry.get('r1', 'alice');
    registry.drop('r1');
    track(registry, 'r1', 'alice', slow());
    old.cancel();
    await dropped?.ended;
    // Ended, then replaced under its id by a live one.
    await endOf('r2');
    track(registry, 'r2', 'alice', slow());
    // Later runs end: the sweep keeps one ended run.
    await endOf('e1');
    await endOf('e2');
    for (const id of ['r1', 'r2']) {
      const entry = registry.get(id, 'alice');
      expect(entry).toBeDefined();
      expect(entry?.record).toBeUndefined(); // the live one, still found
    }
    expect(registry.size).toEqual({ live: 2, paused: 0, finished: 1 });
    registry.cancelAll();
    await Promise.all(['r1', 'r2'].map((id) => registry.get(id, 'alice')?.ended));
  });

  it('ended runs past the retention limit are forgotten; the live count is unaffected', async () => {
    const registry = new RunRegistry({ maxRetainedRuns: 2 });
    track(registry, 'live', 'alice', slow());
    for (const id of ['e1', 'e2', 'e3', 'e4']) {
      track(registry, id, 'alice', quick());
      await registry.get(id, 'alice')?.ended;
    }
    expect(registry.size).toEqual({ live: 1, paused: 0, finished: 2 });
    expect(registry.get('e1', 'alice')).toBeUndefined();
    expect(registry.get('e4', 'alice')?.record?.status).toBe('success');
    registry.cancelAll();
    await registry.get('live', 'alice')?.ended;
  });
});
