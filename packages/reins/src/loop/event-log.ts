import type { EventDraft, RunEvent } from '../events.js';
import { CallbackList } from '../util/callback-list.js';
import { FollowCursor } from '../util/follow-cursor.js';

/**
 * The run's append-only event log. It is the evidence (the record is derived from it) and
 * the stream: every iterator replays from the first event, then follows live until `done`.
 * A paused run's log ends with `done {awaiting_…}` and grows again when it resumes
 * (follow it again from the next sequence number).
 */
export class EventLog {
  readonly #events: RunEvent[] = [];
  // Iterators waiting for the next event: usually none or one.
  readonly #waiters = new CallbackList();
  // Callers waiting for the run to stop (end or pause); made when the first one asks.
  #stopWaiters: CallbackList | undefined;
  #closed = false;
  #stops = 0;

  constructor(
    private readonly runId: string,
    private readonly now: () => number,
  ) {}

  get events(): readonly RunEvent[] {
    return this.#events;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Stamps `draft` (a fresh object the caller gives up) with run id, sequence and time (now, unless given). */
  append(draft: EventDraft, at: number = this.now()): RunEvent {
    if (this.#closed) throw new Error(`run ${this.runId}: event after done`);
    // Stamped in place (a copy per event was the loop's largest cost; Object.assign is 5×
    // slower than three stores).
    const event = draft as { runId: string; seq: number; at: number } & EventDraft;
    event.runId = this.runId;
    event.seq = this.#events.length;
    event.at = at;
    this.#events.push(event as RunEvent);
    if (event.type === 'done') {
      this.#closed = true;
      this.#stops++;
    }
    this.#waiters.drain();
    if (event.type === 'done') this.#stopWaiters?.drain();
    return event;
  }

  /** How many times the run stopped (ended or paused) so far. */
  get stops(): number {
    return this.#stops;
  }

  /** Calls `wake` once, at the next `done` (a pause or the end). */
  onStop(wake: () => void): void {
    (this.#stopWaiters ??= new CallbackList()).add(wake);
  }

  /** A paused run resumes: events follow its `done {awaiting_…}` in the same log. */
  reopen(): void {
    const last = this.#events.at(-1);
    if (last?.type !== 'done' || !last.status.startsWith('awaiting_')) {
      throw new Error(`run ${this.runId}: only a paused run can resume`);
    }
    this.#closed = false;
  }

  /** Replays from `fromSeq`, then follows live until `done` (a plain iterator: cheaper than a generator). */
  follow(fromSeq = 0): AsyncIterableIterator<RunEvent> {
    return new LogCursor(this, fromSeq);
  }

  /** Calls `wake` once, at the next append. */
  onNextAppend(wake: () => void): void {
    this.#waiters.add(wake);
  }
}

/** One reader's position in the log: replays from its start, then follows until the run stops. */
class LogCursor extends FollowCursor<RunEvent> {
  #next: number;

  constructor(
    private readonly log: EventLog,
    from: number,
  ) {
    super();
    this.#next = from;
  }

  protected waitForChange(wake: () => void): void {
    this.log.onNextAppend(wake);
  }

  protected take(): IteratorResult<RunEvent, undefined> | undefined {
    const events = this.log.events;
    if (this.#next < events.length) {
      const event = events[this.#next++] as RunEvent;
      // An iterator ends at the end of the run, or at a pause the run has not resumed from
      // (yet): a pause followed by more events is passed through.
      if (
        event.type === 'done' &&
        (!event.status.startsWith('awaiting_') || (this.log.closed && this.#next === events.length))
      ) {
        this.finished = true;
      }
      return { done: false, value: event };
    }
    return this.log.closed ? this.end() : undefined;
  }
}
