import { clearTimeout, setTimeout } from 'node:timers';

export interface PoolGateOptions {
  /** Connections in the pool: at most this many statements (or transactions) hold one at once. */
  readonly size: number;
  /** The longest wait for a turn while every connection is busy; past it, `busy()` is thrown. */
  readonly waitMs: number;
  /** The error a wait past `waitMs` fails with. */
  readonly busy: () => Error;
}

interface Waiter {
  readonly grant: () => void;
  readonly fail: (error: Error) => void;
}

/**
 * Turns at the `pg` pool, waited for here rather than in the pool: pg-pool bounds a wait for a
 * free connection and the opening of a new one with the same `connectionTimeoutMillis`, so under
 * load (200 runs, 10 connections) a statement queued a second behind the others failed as if
 * PostgreSQL were down. Here a turn is waited for up to `waitMs` (a queue is load, not an
 * outage), the pool is never asked for more connections than it has (its own deadline then only
 * bounds connecting), and an outage fails everyone waiting at once (`failWaiting`), so a dead
 * database costs each caller one deadline, not one per place in the queue.
 */
export class PoolGate {
  #free: number;
  readonly #waiting: Waiter[] = [];

  constructor(private readonly options: PoolGateOptions) {
    this.#free = options.size;
  }

  /** Statements waiting for a turn now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `use` in a turn (taken first, given back when it settles). */
  async run<T>(use: () => Promise<T>): Promise<T> {
    await this.#take();
    try {
      return await use();
    } finally {
      this.#give();
    }
  }

  /** Everyone waiting now fails with `error` (the database is unreachable: no point queueing). */
  failWaiting(error: Error): void {
    for (const waiter of this.#waiting.splice(0)) waiter.fail(error);
  }

  #take(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(this.options.busy());
      }, this.options.waitMs);
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        fail: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#waiting.push(waiter);
    });
  }

  #give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#free++;
    else next.grant(); // the turn passes on without being freed
  }
}
