import type { RunCodec } from './codec/index.js';

/**
 * The codec state of the runs this store is writing, newest use last: delta encoding needs
 * what came before, and reading it back from the database for every append would cost more
 * than the append. Bounded: a run whose state was dropped (ended, evicted, or a write that
 * failed) is rebuilt from its stored rows on its next append.
 */
export class WriterStates {
  readonly #states = new Map<string, RunCodec>();

  constructor(private readonly max: number) {}

  get(runId: string): RunCodec | undefined {
    const state = this.#states.get(runId);
    if (state !== undefined) {
      this.#states.delete(runId);
      this.#states.set(runId, state);
    }
    return state;
  }

  set(runId: string, state: RunCodec): void {
    this.#states.delete(runId);
    this.#states.set(runId, state);
    for (const oldest of this.#states.keys()) {
      if (this.#states.size <= this.max) break;
      this.#states.delete(oldest);
    }
  }

  drop(runId: string): void {
    this.#states.delete(runId);
  }
}
