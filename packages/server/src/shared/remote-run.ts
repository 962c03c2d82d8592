import {
  buildRunRecord,
  FollowCursor,
  type AgentRun,
  type ApprovalAnswer,
  type ClarifyAnswerResult,
  type PendingApproval,
  type PendingQuestion,
  type RunEvent,
  type RunRecord,
  type RunStore,
} from 'reins';
import { isPause } from '../run-feed.js';
import type { RunBus } from './run-bus.js';

/**
 * A run held by a worker (maybe on another machine), as an API instance sees it: its log, read
 * from the run store and kept current from the run's channel on the bus. Everything the
 * routes read of a run (events, phase, the record at the next stop, following from a
 * `Last-Event-ID`) works as on a local run; what changes a run (cancel, approve, answer) is
 * sent to the workers (`SharedApi`).
 *
 * Events arrive in order with consecutive `seq`s; one arriving past a gap (this instance missed
 * a message, or a killed worker stored an event it never published) makes the log be read
 * again from the store, which has every event before any is published.
 */
export class RemoteRun implements AgentRun {
  readonly #events: RunEvent[] = [];
  readonly #store: RunStore;
  readonly #cancel: (run: RemoteRun) => void;
  #waiters: (() => void)[] = [];
  /** The seq of a pause's `done` the user has answered here (the run goes on past it). */
  #answeredPause = -1;
  #unsubscribe: (() => void) | undefined;
  #refetching: Promise<void> | undefined;
  #refetchAgain = false;
  /** Called at every change (the server's feed is poked: a stream waiting on it wakes at once). */
  onChange: () => void = () => undefined;
  /** When the last event arrived (or the run was opened): a run quiet for long is re-read (`resync`). */
  #lastHeard = Date.now();
  /** When the log was last re-read because of quiet. */
  #lastChecked = 0;

  private constructor(
    readonly runId: string,
    store: RunStore,
    cancel: (run: RemoteRun) => void,
  ) {
    this.#store = store;
    this.#cancel = cancel;
  }

  /**
   * Follows `runId` (subscribed before its log is read: nothing falls between); `undefined` if
   * the store has no such run. `known`: its log as just read (`[]` for a run just created).
   */
  static async open(
    runId: string,
    bus: RunBus,
    store: RunStore,
    cancel: (run: RemoteRun) => void,
    known?: readonly RunEvent[],
  ): Promise<RemoteRun | undefined> {
    const run = new RemoteRun(runId, store, cancel);
    run.#unsubscribe = await bus.onEvents(runId, (event) => run.receive(event));
    if (known !== undefined) {
      run.#take(known);
      // Read before subscribing: what was published in between is read from the store now.
      if (known.length > 0) await run.#refetch();
      return run;
    }
    const events = (await store.load(runId))?.events;
    if (events === undefined) {
      run.close();
      return undefined;
    }
    run.#take(events);
    return run;
  }

  get events(): readonly RunEvent[] {
    return this.#events;
  }

  /** An event from the bus. */
  receive(event: RunEvent): void {
    this.#lastHeard = Date.now();
    if (event.seq < this.#events.length) return; // seen (from the store, or twice)
    if (event.seq === this.#events.length) return this.#take([event]);
    void this.#refetch();
  }

  /** Whether the run is still followed (not ended, not closed). */
  get following(): boolean {
    return this.#unsubscribe !== undefined;
  }

  /** How long nothing was heard of the run. */
  quietFor(now: number): number {
    return now - this.#lastHeard;
  }

  /**
   * Re-reads the log from the store when nothing was heard for `quietMs` (or always, with 0):
   * the safety net under pub/sub, whose messages are lost while a connection is down.
   */
  resync(now: number, quietMs: number): Promise<void> {
    if (!this.following || now - Math.max(this.#lastHeard, this.#lastChecked) < quietMs)
      return Promise.resolve();
    this.#lastChecked = now;
    return this.#refetch();
  }

  /** The user's answer was taken by the worker: the run goes on past its pause. */
  markAnswered(): void {
    const last = this.#events.at(-1);
    if (last?.type === 'done' && isPause(last.status)) this.#answeredPause = last.seq;
    this.#changed();
  }

  get pendingApproval(): PendingApproval | undefined {
    if (!this.#pausedAt('awaiting_approval')) return undefined;
    const asked = this.#events.findLast((e) => e.type === 'approval');
    if (asked?.type !== 'approval') return undefined;
    const { actId, tool, input, inputHash, expiresAt } = asked;
    return { actId, tool, input, inputHash, expiresAt };
  }

  get pendingQuestion(): PendingQuestion | undefined {
    if (!this.#pausedAt('awaiting_input')) return undefined;
    const asked = this.#events.findLast((e) => e.type === 'clarify');
    if (asked?.type !== 'clarify') return undefined;
    const { questionId, question, field, stepId, candidates, expiresAt } = asked;
    return { questionId, question, field, stepId, candidates, expiresAt };
  }

  /** The record at the run's next stop: now if it is stopped (ended, or paused and not answered). */
  get result(): Promise<RunRecord> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.#stopped()) resolve(buildRunRecord(this.#events));
        else this.#waiters.push(check);
      };
      check();
    });
  }

  cancel(): void {
    this.#cancel(this);
  }

  approve(): ApprovalAnswer {
    throw new Error('a run held by a worker is answered through SharedApi.approve');
  }

  answer(): ClarifyAnswerResult {
    throw new Error('a run held by a worker is answered through SharedApi.answer');
  }

  follow(fromSeq: number): AsyncIterableIterator<RunEvent> {
    return new RemoteCursor(this, fromSeq);
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.follow(0);
  }

  /** Large fields stay with the worker's blob store; not reachable from here. */
  readLargeField(): Promise<unknown> {
    return Promise.resolve(undefined);
  }

  /** What this instance shows came from the store (or from a worker after storing it). */
  persisted(): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** Stops following (the run ended, or this instance forgets it). */
  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Calls `wake` once, at the next change. */
  onNextChange(wake: () => void): void {
    this.#waiters.push(wake);
  }

  /** Stopped: the last event is a `done` — the end, or a pause nobody has answered here. */
  get stopped(): boolean {
    return this.#stopped();
  }

  #stopped(): boolean {
    const last = this.#events.at(-1);
    return last?.type === 'done' && !(isPause(last.status) && last.seq <= this.#answeredPause);
  }

  #pausedAt(status: 'awaiting_approval' | 'awaiting_input'): boolean {
    const last = this.#events.at(-1);
    return last?.type === 'done' && last.status === status && last.seq > this.#answeredPause;
  }

  #take(events: readonly RunEvent[]): void {
    let added = false;
    for (const event of events) {
      if (event.seq !== this.#events.length) continue;
      this.#events.push(event);
      added = true;
    }
    if (!added) return;
    this.#lastHeard = Date.now();
    const last = this.#events.at(-1);
    if (last?.type === 'done' && !isPause(last.status)) this.close(); // ended: nothing more will come
    this.#changed();
  }

  #refetch(): Promise<void> {
    if (this.#refetching !== undefined) {
      this.#refetchAgain = true;
      return this.#refetching;
    }
    this.#refetching = (async () => {
      do {
        this.#refetchAgain = false;
        const loaded = await this.#store.load(this.runId).catch(() => undefined);
        if (loaded !== undefined) this.#take(loaded.events.slice(this.#events.length));
      } while (this.#refetchAgain);
    })().finally(() => (this.#refetching = undefined));
    return this.#refetching;
  }

  #changed(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
    this.onChange();
  }
}

/** One reader of a remote run: to its next stop (a pause not answered, or the end), like the core's `follow`. */
class RemoteCursor extends FollowCursor<RunEvent> {
  #next: number;

  constructor(
    private readonly run: RemoteRun,
    fromSeq: number,
  ) {
    super();
    this.#next = Math.max(0, fromSeq);
  }

  protected waitForChange(wake: () => void): void {
    this.run.onNextChange(wake);
  }

  protected take(): IteratorResult<RunEvent, undefined> | undefined {
    const events = this.run.events;
    if (this.#next < events.length) {
      const event = events[this.#next++] as RunEvent;
      if (event.type === 'done' && this.#next === events.length && this.run.stopped) this.finished = true;
      return { done: false, value: event };
    }
    return this.run.stopped ? this.end() : undefined;
  }
}
