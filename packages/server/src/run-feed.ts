import { FollowCursor, type AgentRun, type RunEvent, type RunStatus } from 'reins';

/** Where a run is: executing, stopped for its user (`awaiting_…`), or ended for good. */
export type RunPhase = 'running' | 'paused' | 'ended';

/** How far a cursor follows: to the run's next stop (a pause or the end), or to its end. */
export type FollowUntil = 'stop' | 'end';

export interface FeedTiming {
  /** A resumed run's log is checked for new events this often until its next stop; default 20 ms. */
  readonly resumedPollMs?: number;
  /** A paused run is checked this often for resuming by itself (an approval expiring); default 500 ms. */
  readonly pausedPollMs?: number;
}

/** A `done` status that pauses the run (it continues in the same log once answered). */
export function isPause(status: RunStatus | string): boolean {
  return status.startsWith('awaiting_');
}

/**
 * Follows one run's log across pauses and wakes the server's readers (SSE streams, the run
 * watcher) at each new event. A paused log ends with `done {awaiting_…}` and grows again,
 * in the same log, once the user answers.
 *
 * Why it exists: the core's `AgentRun` iterator replays from `start` and ends at the first
 * `done`, so it cannot follow a run past a pause, and `AgentRun` has no other append
 * notification. Until the core offers one (e.g. `follow(fromSeq)` across pauses), the feed
 * follows the first segment through that iterator (live, per event), and a resumed segment
 * by checking `run.events` every `resumedPollMs` plus at once when `run.result` settles at
 * the next stop. The server calls `poke()` after anything it does that resumes a run
 * (approve, cancel); a paused run that resumes by itself (its approval expired) is noticed
 * within `pausedPollMs`.
 */
export class RunFeed {
  readonly #run: AgentRun;
  readonly #resumedPollMs: number;
  readonly #pausedPollMs: number;
  // Readers waiting for the next change (new events or a phase change): one-shot callbacks.
  #waiters: (() => void)[] = [];
  #wake: (() => void) | undefined;
  readonly ended: Promise<void>;

  constructor(run: AgentRun, timing: FeedTiming = {}) {
    this.#run = run;
    this.#resumedPollMs = timing.resumedPollMs ?? 20;
    this.#pausedPollMs = timing.pausedPollMs ?? 500;
    this.ended = this.#pump();
  }

  get events(): readonly RunEvent[] {
    return this.#run.events;
  }

  /**
   * `paused` only while the run really waits: once an approval or a question is answered (or
   * expires, or the run is cancelled) the run is `running` again, even before its next event is logged.
   */
  get phase(): RunPhase {
    const last = this.#run.events.at(-1);
    if (last?.type !== 'done') return 'running';
    if (!isPause(last.status)) return 'ended';
    if (last.status === 'awaiting_approval' && this.#run.pendingApproval === undefined) return 'running';
    if (last.status === 'awaiting_input' && this.#run.pendingQuestion === undefined) return 'running';
    return 'paused';
  }

  /** Something may have resumed the run (an answer, a cancel): look now rather than at the next check. */
  poke(): void {
    this.#wake?.();
  }

  /**
   * The run's events from `fromSeq`. `until: 'stop'` ends after a `done` that is the log's
   * last event when read (a pause already answered is followed through), or at once when the
   * run is stopped and nothing is left to send; `until: 'end'` follows through every pause
   * to the run's final `done`.
   */
  follow(fromSeq: number, until: FollowUntil): AsyncIterableIterator<RunEvent> {
    return new FeedCursor(this, fromSeq, until);
  }

  /** Calls `wake` once, at the next change. */
  onChange(wake: () => void): void {
    this.#waiters.push(wake);
  }

  #changed(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async #pump(): Promise<void> {
    try {
      // The first segment, live: the core's iterator ends at the first `done`.
      for await (const _event of this.#run) this.#changed();
      for (let phase = this.phase; phase !== 'ended'; phase = this.phase) {
        if (phase === 'paused') {
          await this.#sleep(this.#pausedPollMs);
        } else {
          // Resumed: the log is open again, so `result` is the next stop's.
          void this.#run.result.then(() => this.poke());
          while (this.phase === 'running') {
            await this.#sleep(this.#resumedPollMs);
            this.#changed();
          }
        }
        this.#changed();
      }
    } finally {
      this.#changed();
    }
  }

  /** Resolves after `ms`, or earlier at a `poke`. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        if (this.#wake === wake) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref(); // a run waiting for its user must not keep a process alive by itself
      this.#wake = wake;
    });
  }
}

/** One reader's position in the feed (`return()` ends a pending `next()` at once). */
class FeedCursor extends FollowCursor<RunEvent> {
  #next: number;

  constructor(
    private readonly feed: RunFeed,
    fromSeq: number,
    private readonly until: FollowUntil,
  ) {
    super();
    this.#next = Math.max(0, fromSeq);
  }

  protected waitForChange(wake: () => void): void {
    this.feed.onChange(wake);
  }

  protected take(): IteratorResult<RunEvent, undefined> | undefined {
    const events = this.feed.events;
    if (this.#next < events.length) {
      const event = events[this.#next++] as RunEvent;
      if (event.type === 'done' && this.#endsAt(event.status, events.length)) this.finished = true;
      return { done: false, value: event };
    }
    const phase = this.feed.phase;
    if (phase === 'ended' || (this.until === 'stop' && phase === 'paused')) return this.end();
    return undefined;
  }

  #endsAt(status: RunStatus, logged: number): boolean {
    if (!isPause(status)) return true;
    // A pause ends a `stop` reader unless the run has already gone on past it.
    return this.until === 'stop' && this.#next === logged;
  }
}
