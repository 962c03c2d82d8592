import type { RunEvent, RunStatus } from '../events.js';

/** A JSON value as stores keep it (what `JSON.parse(JSON.stringify(x))` gives back). */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Where a stored run is: executing (or interrupted by a crash), paused for its user, or ended. */
export type StoredRunStatus = RunStatus | 'running';

/** A run as it is created in a store, before its first event. */
export interface NewStoredRun {
  readonly runId: string;
  /** The principal id that started it: the only one who may read, answer or cancel it. */
  readonly ownerId: string;
  readonly agent: string;
  /** The conversation the run is a turn of, if any. */
  readonly conversationId?: string | undefined;
  /**
   * What rebuilds the run after a restart, as the server resolved it (the query, the trusted
   * principal, per-run options, the conversation context shown to the model). Opaque to the
   * store: written once, read back deep-equal.
   */
  readonly request: { readonly [key: string]: JsonValue };
  /** Epoch ms. */
  readonly createdAt: number;
}

/** A run's row: what it was started with and where its log stands. */
export interface StoredRun extends NewStoredRun {
  /**
   * From the last stored event: `running` until a `done`; a `done`'s status after it (a pause
   * — `awaiting_approval` / `awaiting_input` — or the end); `running` again once events
   * follow a pause.
   */
  readonly status: StoredRunStatus;
  /** Epoch ms of the last stored event (`createdAt` before the first). */
  readonly updatedAt: number;
  /** How many events are stored (the next event's `seq`). */
  readonly eventCount: number;
}

export interface LoadedRun {
  readonly run: StoredRun;
  /** Every stored event, in `seq` order, deep-equal to what was appended. */
  readonly events: readonly RunEvent[];
}

/**
 * Durable runs: a row per run and its append-only event log. History is the truth: a live run
 * is a cache of its log, and a run is rebuilt from it after a restart.
 *
 * Contract (the suite in `test/contract/run-store-contract.ts` holds every implementation to it):
 * - `create` precedes every `append` of the run; creating an id that exists throws (a
 *   programmer mistake: ids are UUIDs made by the server).
 * - `append(runId, events)` stores `events` (consecutive `seq`, all of this run) durably before
 *   it resolves. Events whose `seq` is already stored are skipped (a retried write after a lost
 *   acknowledgement); a batch that would leave a gap rejects with a `RangeError` and stores
 *   nothing. Appending to a run that does not exist rejects. Status and `updatedAt` follow the
 *   last event (see `StoredRun.status`).
 * - `load` returns the run and all its events decoded exactly (`toEqual` the appended events),
 *   or `undefined` for an unknown id.
 * - `unfinished()` lists runs whose status is `running` or a pause, oldest first: what a
 *   restarted server resumes or rebuilds.
 * - `sweep(endedBefore)` deletes runs that ended (not running, not paused) with `updatedAt`
 *   before `endedBefore`, and their events; returns how many runs it deleted.
 * - `deleteConversation(conversationId, ownerId)` deletes that owner's runs of the conversation
 *   (what "forget this conversation" removes); returns how many.
 * - Failures (the database is down) reject; nothing is half-stored (a batch is atomic).
 *
 * Decided where the above was open (and held by the suite):
 * - "Deep-equal" is JSON's: what is stored is the event's JSON, so a key whose value is
 *   `undefined` (e.g. `degraded: undefined`) is not there after `load` (`toEqual` holds,
 *   `toStrictEqual` holds against `JSON.parse(JSON.stringify(event))`). Numbers come back as
 *   the identical doubles.
 * - A duplicate `seq` is skipped without comparing it to what is stored.
 * - A batch holding an event of another run rejects (a programmer mistake) and stores nothing.
 * - `sweep` deletes runs whose `updatedAt` is strictly before `endedBefore`.
 */
export interface RunStore {
  create(run: NewStoredRun): Promise<void>;
  append(runId: string, events: readonly RunEvent[]): Promise<void>;
  load(runId: string): Promise<LoadedRun | undefined>;
  unfinished(): Promise<StoredRun[]>;
  sweep(endedBefore: number): Promise<number>;
  deleteConversation(conversationId: string, ownerId: string): Promise<number>;
}

/** A `done` status that pauses the run (it goes on in the same log once answered). */
export function isPausedStatus(status: StoredRunStatus): boolean {
  return status === 'awaiting_approval' || status === 'awaiting_input';
}

/** The status a run's log stands at after `event` (see `StoredRun.status`). */
export function statusAfter(event: RunEvent): StoredRunStatus {
  return event.type === 'done' ? event.status : 'running';
}
