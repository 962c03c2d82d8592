import { buildRunRecord, type AgentRun, type LoadedRun, type RunEvent, type RunRecord } from 'reins';
import { storedTraceId } from './launch-run.js';
import type { RunEntry, RunRegistry } from './run-registry.js';

const NOT_PENDING = {
  ok: false,
  code: 'NOT_FOUND',
  message: 'the run has ended: nothing is pending',
} as const;

/**
 * A run that ended before this process started, read back from the run store: its events
 * and record, replayable (`/events` with `Last-Event-ID`); nothing can change it any more.
 */
export class StoredRun implements AgentRun {
  readonly result: Promise<RunRecord>;
  readonly pendingApproval = undefined;
  readonly pendingQuestion = undefined;

  constructor(
    readonly runId: string,
    readonly events: readonly RunEvent[],
  ) {
    this.result = Promise.resolve(buildRunRecord(events));
  }

  cancel(): void {}

  approve() {
    return NOT_PENDING;
  }

  answer() {
    return NOT_PENDING;
  }

  async *follow(fromSeq: number): AsyncIterableIterator<RunEvent> {
    for (const event of this.events.slice(Math.max(0, fromSeq))) yield event;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.follow(0);
  }

  readLargeField(): Promise<unknown> {
    return Promise.resolve(undefined);
  }

  persisted(): Promise<boolean> {
    return Promise.resolve(true);
  }
}

/** Holds a run that had ended when it was read from the store (its reads answered), with its trace id. */
export function holdEndedRun(registry: RunRegistry, { run, events }: LoadedRun): RunEntry {
  const entry = registry.add(
    run.runId,
    run.ownerId,
    run.agent,
    new StoredRun(run.runId, events),
    () => undefined,
  );
  entry.traceId = storedTraceId(run.request);
  return entry;
}
