import type { EventDraft, RunEvent } from '../events.js';

/**
 * The run's append-only event log. It is the evidence (the record is derived from it) and
 * the stream: every iterator replays from the first event, then follows live until `done`.
 */
export class EventLog {
  readonly #events: RunEvent[] = [];
  #wake: (() => void) | undefined;
  #closed = false;

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
    // Stamped in place: copying every event with a spread was the loop's largest cost.
    const event = Object.assign(draft, {
      runId: this.runId,
      seq: this.#events.length,
      at,
    }) as RunEvent;
    this.#events.push(event);
    if (event.type === 'done') this.#closed = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
    return event;
  }

  async *follow(fromSeq = 0): AsyncGenerator<RunEvent, void, undefined> {
    let next = fromSeq;
    for (;;) {
      while (next < this.#events.length) {
        const event = this.#events[next++] as RunEvent;
        yield event;
        if (event.type === 'done') return;
      }
      if (this.#closed) return;
      await this.#nextAppend();
    }
  }

  #nextAppend(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.#wake;
      this.#wake = () => {
        previous?.();
        resolve();
      };
    });
  }
}
