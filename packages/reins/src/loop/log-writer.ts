import { describeThrown } from '../errors.js';
import type { RunEvent } from '../events.js';

/** Where a durable run's events go: resolves once `events` (in `seq` order) are stored. */
export type EventSink = (events: readonly RunEvent[]) => Promise<void>;

export interface LogWriterOptions {
  /** After this long failing to store, events are shown anyway (live beats durable); default 5 000 ms. */
  readonly releaseAfterMs?: number;
  /** Told of each failed write (the writer keeps trying, in order). */
  readonly onError?: (error: unknown) => void;
  readonly now: () => number;
  readonly setTimer: (callback: () => void, ms: number) => unknown;
  readonly clearTimer?: (handle: unknown) => void;
}

interface PersistWaiter {
  readonly upTo: number;
  readonly resolve: (stored: boolean) => void;
}

/**
 * Writes a run's events to its sink in order, batching what was appended within one tick
 * (usually one step's events), and publishes each batch once it is stored — so nobody sees an
 * event that a crash could lose. A failing sink is retried with backoff (100 ms doubling to
 * 2 s), in order, never skipping a batch; after `releaseAfterMs` of failure the waiting
 * events are published anyway, so a store outage delays clients but never hangs them, and
 * `persisted()` callers learn that their events were not stored. A store that does not answer
 * at all is an outage too: a write pending for `releaseAfterMs` releases the events waiting,
 * and the events appended while it hangs are shown as they come (the write is not given up:
 * the batches stay in order, each stored once).
 */
export class LogWriter {
  readonly #sink: EventSink;
  readonly #publish: (count: number) => void;
  readonly #options: LogWriterOptions;
  readonly #queue: RunEvent[] = [];
  #writing = false;
  /** Events stored so far (by count from the first queued one's seq). */
  #storedUpTo = 0;
  #waiters: PersistWaiter[] = [];
  #failingSince: number | undefined;
  #lastError: unknown;
  /** A write has been pending past `releaseAfterMs`: events are shown as they are appended. */
  #stalled = false;

  /** `stored`: how many events of the log are stored already (a rebuilt run's history). */
  constructor(sink: EventSink, publish: (count: number) => void, options: LogWriterOptions, stored = 0) {
    this.#storedUpTo = stored;
    this.#sink = sink;
    this.#publish = publish;
    this.#options = options;
  }

  /** Queues one event (its `seq` follows the last queued one); written at the end of this tick. */
  enqueue(event: RunEvent): void {
    this.#queue.push(event);
    if (this.#stalled) this.#release(event.seq + 1); // the store hangs: shown now, stored later
    if (!this.#writing) {
      this.#writing = true;
      queueMicrotask(() => void this.#drain());
    }
  }

  /**
   * Resolves `true` once every event queued so far is stored; `false` if the store has been
   * failing past `releaseAfterMs` (the events were shown but may be lost in a crash).
   */
  persisted(upTo: number): Promise<boolean> {
    if (this.#storedUpTo >= upTo) return Promise.resolve(true);
    if (this.#failingSince !== undefined && this.#options.now() - this.#failingSince >= this.releaseAfterMs) {
      // Released: what the caller asks about is shown now, not at the next failed retry.
      this.#release(upTo);
      return Promise.resolve(false);
    }
    return new Promise((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  /** Why the last write failed, while the store is failing. */
  get failure(): string | undefined {
    return this.#failingSince === undefined ? undefined : describeThrown(this.#lastError);
  }

  get releaseAfterMs(): number {
    return this.#options.releaseAfterMs ?? 5_000;
  }

  async #drain(): Promise<void> {
    let backoff = 100;
    while (this.#queue.length > 0) {
      const batch = this.#queue.slice();
      const upTo = (batch.at(-1) as RunEvent).seq + 1;
      // A write still pending after `releaseAfterMs` counts as a failing store (see the class).
      const watchdog = this.#options.setTimer(() => this.#stall(batch), this.releaseAfterMs);
      try {
        await this.#sink(batch);
      } catch (error) {
        this.#stalled = false;
        this.#options.clearTimer?.(watchdog);
        this.#lastError = error;
        this.#failingSince ??= this.#options.now();
        try {
          this.#options.onError?.(error);
        } catch {
          // A failing listener must not stop the writer: the run would never be shown again.
        }
        if (this.#options.now() - this.#failingSince >= this.releaseAfterMs) this.#release(upTo);
        await new Promise<void>((resolve) => this.#options.setTimer(resolve, backoff));
        backoff = Math.min(backoff * 2, 2_000);
        continue;
      }
      this.#stalled = false;
      this.#options.clearTimer?.(watchdog);
      backoff = 100;
      this.#failingSince = undefined;
      this.#queue.splice(0, batch.length);
      this.#storedUpTo = upTo;
      this.#publish(upTo);
      this.#settle((w) => w.upTo <= upTo, true);
    }
    this.#writing = false;
  }

  /** The write of `batch` has not answered in `releaseAfterMs`: the store is failing. */
  #stall(batch: readonly RunEvent[]): void {
    if (this.#queue[0] !== batch[0]) return; // written meanwhile (a timer that could not be cleared)
    this.#stalled = true;
    this.#lastError = new Error(`the store did not answer within ${this.releaseAfterMs} ms`);
    this.#failingSince ??= this.#options.now() - this.releaseAfterMs;
    try {
      this.#options.onError?.(this.#lastError);
    } catch {
      // A failing listener must not stop the writer.
    }
    const last = this.#queue.at(-1) as RunEvent;
    this.#release(last.seq + 1);
  }

  /** The store keeps failing: show what waits, and tell `persisted()` callers it is not stored. */
  #release(upTo: number): void {
    this.#publish(upTo);
    this.#settle(() => true, false);
  }

  #settle(which: (w: { upTo: number }) => boolean, stored: boolean): void {
    const keep: PersistWaiter[] = [];
    for (const waiter of this.#waiters) {
      if (which(waiter)) waiter.resolve(stored);
      else keep.push(waiter);
    }
    this.#waiters = keep;
  }
}
