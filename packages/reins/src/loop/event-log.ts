import type { EventDraft, RunEvent } from '../events.js';
import { CallbackList } from '../util/callback-list.js';
import { FollowCursor } from '../util/follow-cursor.js';
import { LogWriter, type LogWriterOptions, type EventSink } from './log-writer.js';
import type { RunReplay } from './run-replay.js';

/** Makes a run's log durable: its sink, and (for a run rebuilt after a restart) its history. */
export interface DurableLog {
  readonly sink: EventSink;
  readonly writer?: Omit<LogWriterOptions, 'now' | 'setTimer' | 'clearTimer'>;
  readonly setTimer: (callback: () => void, ms: number) => unknown;
  readonly clearTimer?: (handle: unknown) => void;
}

/**
 * The run's append-only event log. It is the evidence (the record is derived from it) and
 * the stream: every iterator replays from the first event, then follows live until `done`.
 * A paused run's log ends with `done {awaiting_…}` and grows again when it resumes
 * (follow it again from the next sequence number).
 *
 * A durable log (`DurableLog`) publishes an event only once its sink has stored it: readers
 * (`published`, `follow`, `onStop`) see the stored prefix; the run itself reads `events`.
 * A log rebuilt from its history (`RunReplay`) starts with the history published and hands
 * back the recorded event for each event the replayed run appends again (see `RunReplay`):
 * callers that need an id from the event they appended read it from the returned event.
 */
export class EventLog {
  readonly #events: RunEvent[];
  /** What readers see: the same array when nothing needs storing first. */
  readonly #published: RunEvent[];
  readonly #writer: LogWriter | undefined;
  #replay: RunReplay | undefined;
  // Iterators waiting for the next event: usually none or one; made when the first one waits.
  #waiters: CallbackList | undefined;
  // Callers waiting for the run to stop (end or pause); made when the first one asks.
  #stopWaiters: CallbackList | undefined;
  #closed = false;
  /** Replaying, the run stands at a recorded pause that its history goes on past (it resumes at once). */
  #pausedInHistory = false;
  #stops = 0;

  constructor(
    private readonly runId: string,
    private readonly now: () => number,
    durable?: DurableLog,
    replay?: RunReplay,
  ) {
    this.#events = replay === undefined ? [] : [...replay.history];
    this.#published = durable === undefined ? this.#events : [...this.#events];
    if (replay?.replaying === true) this.#replay = replay;
    if (durable !== undefined) {
      const options = { ...durable.writer, now, setTimer: durable.setTimer, clearTimer: durable.clearTimer };
      this.#writer = new LogWriter(durable.sink, (n) => this.#publish(n), options, this.#events.length);
    }
  }

  /** Every event the run appended, stored or not (the run's own view). */
  get events(): readonly RunEvent[] {
    return this.#events;
  }

  /** What readers may see: every event of a log without a sink; the stored prefix of a durable one. */
  get published(): readonly RunEvent[] {
    return this.#published;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** True when events are stored before readers see them (`DurableLog`). */
  get durable(): boolean {
    return this.#writer !== undefined;
  }

  /** Stopped (ended or paused) where the run is now, and readers can see it: every event is published. */
  get stoppedVisibly(): boolean {
    // Replaying, a recorded pause is passed through (the history goes on past it).
    return this.#closed && !this.#pausedInHistory && this.#published.length === this.#events.length;
  }

  /**
   * Stamps `draft` (a fresh object the caller gives up) with run id, sequence and time (now,
   * unless given) and returns it — or, replaying, the recorded event (see the class comment).
   * A hot-path draft may already have the three fields (any values: they are overwritten), so
   * stamping stores into its own slots instead of growing it a property array (~40 bytes and
   * a map transition per event).
   */
  append(draft: EventDraft | RunEvent, at: number = this.now()): RunEvent {
    if (this.#closed) throw new Error(`run ${this.runId}: event after done`);
    const replay = this.#replay;
    if (replay !== undefined) {
      const recorded = replay.match(draft);
      if (!replay.replaying) this.#replay = undefined;
      if (recorded === 'drop') return { ...draft, runId: this.runId, seq: -1, at } as RunEvent;
      if (recorded !== undefined) {
        this.#note(recorded);
        // A recorded pause that the history goes on past is not where the run stops now: only
        // a `done` that uses the history up is a stop readers are woken for.
        this.#pausedInHistory = recorded.type === 'done' && recorded.seq < replay.lastSeq;
        this.#waiters?.drain();
        if (recorded.type === 'done' && !this.#pausedInHistory) this.#stopWaiters?.drain();
        return recorded;
      }
    }
    // Stamped in place (a copy per event was the loop's largest cost; Object.assign is 5×
    // slower than three stores).
    const event = draft as { runId: string; seq: number; at: number } & EventDraft;
    event.runId = this.runId;
    event.seq = this.#events.length;
    event.at = at;
    return this.#add(event as RunEvent);
  }

  /** The sequence number of the next event appended (what a stamped event carries: `appendStamped`). */
  get nextSeq(): number {
    return this.#events.length;
  }

  /**
   * `append` for an event born with its stamps — this log's `runId`, `seq` = `nextSeq`, its
   * time in `at` — as the loop's hot-path events are: nothing is stored into it. `append`'s
   * three stores meet events of a dozen shapes, so each is a generic store (~3% of a run's
   * CPU, see bench/). A log replaying its history, a closed one, or stale stamps take
   * `append` (which stamps the event again).
   */
  appendStamped(event: RunEvent): RunEvent {
    const stale = event.seq !== this.#events.length || event.runId !== this.runId;
    if (this.#replay !== undefined || this.#closed || stale) {
      return this.append(event, event.at);
    }
    return this.#add(event);
  }

  #add(event: RunEvent): RunEvent {
    this.#events.push(event);
    if (this.#pausedInHistory) this.#pausedInHistory = false;
    const done = event.type === 'done';
    if (done) this.#note(event);
    if (this.#writer !== undefined) this.#writer.enqueue(event);
    else {
      this.#waiters?.drain();
      if (done) this.#stopWaiters?.drain();
    }
    return event;
  }

  /** Resolves `true` once everything appended so far is stored (at once without a sink); see `LogWriter`. */
  persisted(): Promise<boolean> {
    return this.#writer === undefined ? Promise.resolve(true) : this.#writer.persisted(this.#events.length);
  }

  /** How many times the run stopped (ended or paused) so far. */
  get stops(): number {
    return this.#stops;
  }

  /** Calls `wake` once, at the next published `done` (a pause or the end). */
  onStop(wake: () => void): void {
    (this.#stopWaiters ??= new CallbackList()).add(wake);
  }

  /** A paused run resumes: events follow its `done {awaiting_…}` in the same log. */
  reopen(): void {
    const last = this.#events.at(-1);
    if (last?.type !== 'done' || !last.status.startsWith('awaiting_')) {
      // Replaying, the pause may be followed by recorded events already (its `resume` …).
      if (!(this.#closed && this.#lastDone?.status.startsWith('awaiting_') === true)) {
        throw new Error(`run ${this.runId}: only a paused run can resume`);
      }
    }
    this.#closed = false;
    this.#pausedInHistory = false;
  }

  /** Replays from `fromSeq`, then follows live until `done` (a plain iterator: cheaper than a generator). */
  follow(fromSeq = 0): AsyncIterableIterator<RunEvent> {
    return new LogCursor(this, fromSeq);
  }

  /** Calls `wake` once, at the next published event. */
  onNextAppend(wake: () => void): void {
    (this.#waiters ??= new CallbackList()).add(wake);
  }

  #lastDone: Extract<RunEvent, { type: 'done' }> | undefined;

  #note(event: RunEvent): void {
    if (event.type !== 'done') return;
    this.#closed = true;
    this.#stops++;
    this.#lastDone = event;
  }

  #publish(count: number): void {
    const published = this.#published;
    if (count <= published.length) return;
    let stopped = false;
    for (let i = published.length; i < count; i++) {
      const event = this.#events[i] as RunEvent;
      published.push(event);
      if (event.type === 'done') stopped = true;
    }
    this.#waiters?.drain();
    if (stopped) this.#stopWaiters?.drain();
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
    const events = this.log.published;
    if (this.#next < events.length) {
      const event = events[this.#next++] as RunEvent;
      // An iterator ends at the end of the run, or at a pause the run has not resumed from
      // (yet): a pause followed by more events is passed through.
      if (
        event.type === 'done' &&
        (!event.status.startsWith('awaiting_') || (this.log.closed && this.#next === this.log.events.length))
      ) {
        this.finished = true;
      }
      return { done: false, value: event };
    }
    return this.log.closed && this.#next >= this.log.events.length ? this.end() : undefined;
  }
}
