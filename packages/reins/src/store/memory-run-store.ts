import type { RunEvent } from '../events.js';
import {
  isPausedStatus,
  statusAfter,
  type LoadedRun,
  type NewStoredRun,
  type RunStore,
  type StoredRun,
} from './run-store.js';

/**
 * Runs in this process's memory: the `RunStore` of tests and of runs that need not outlive the
 * process. Events are kept as their JSON (what a real database keeps: a `toJSON`, such as a
 * kept prompt's, applies), so a caller mutating its objects later cannot change the history.
 */
export function memoryRunStore(): RunStore {
  const runs = new Map<string, { run: StoredRun; events: RunEvent[] }>();
  return {
    async create(run: NewStoredRun) {
      if (runs.has(run.runId)) throw new Error(`run ${run.runId} exists already`);
      const stored: StoredRun = {
        ...structuredClone(run),
        status: 'running',
        updatedAt: run.createdAt,
        eventCount: 0,
      };
      runs.set(run.runId, { run: stored, events: [] });
    },
    async append(runId, events) {
      const entry = runs.get(runId);
      if (entry === undefined) throw new Error(`run ${runId} does not exist`);
      // The whole batch is checked for another run's event, also the seqs already stored.
      const stranger = events.find((e) => e.runId !== runId);
      if (stranger !== undefined) throw new Error(`event of run ${stranger.runId} appended to ${runId}`);
      const fresh = events.filter((e) => e.seq >= entry.events.length);
      const first = fresh[0];
      if (first === undefined) return;
      fresh.forEach((event, i) => {
        if (event.seq !== entry.events.length + i)
          throw new RangeError(
            `run ${runId}: event seq ${event.seq} leaves a gap after ${entry.events.length - 1}`,
          );
      });
      entry.events.push(...fresh.map((e) => JSON.parse(JSON.stringify(e)) as RunEvent));
      const last = fresh[fresh.length - 1] as RunEvent;
      entry.run = {
        ...entry.run,
        status: statusAfter(last),
        updatedAt: last.at,
        eventCount: entry.events.length,
      };
    },
    async load(runId): Promise<LoadedRun | undefined> {
      const entry = runs.get(runId);
      return entry === undefined
        ? undefined
        : { run: structuredClone(entry.run), events: structuredClone(entry.events) };
    },
    async unfinished() {
      return [...runs.values()]
        .map((e) => e.run)
        .filter((r) => r.status === 'running' || isPausedStatus(r.status))
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((r) => structuredClone(r));
    },
    async sweep(endedBefore) {
      let deleted = 0;
      for (const [id, { run }] of runs) {
        if (run.status === 'running' || isPausedStatus(run.status) || run.updatedAt >= endedBefore) continue;
        runs.delete(id);
        deleted++;
      }
      return deleted;
    },
    async deleteConversation(conversationId, ownerId) {
      let deleted = 0;
      for (const [id, { run }] of runs) {
        if (run.conversationId !== conversationId || run.ownerId !== ownerId) continue;
        runs.delete(id);
        deleted++;
      }
      return deleted;
    },
  };
}
