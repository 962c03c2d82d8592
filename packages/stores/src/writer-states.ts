/**
 * The codec state of the runs this store is writing, newest use last: delta encoding needs
 * what came before, and reading it back from the database for every append would cost more
 * than the append. Bounded: a run whose state was dropped (ended, evicted, or a write that
 * failed) is rebuilt from its stored rows on its next append. `evicted` hears of each state
 * dropped for room (not of `drop`).
 */
export class WriterStates<State> {
  readonly #states = new Map<string, State>();

  constructor(
    private readonly max: number,
    private readonly evicted: (runId: string) => void = () => {},
  ) {}

  get(runId: string): State | undefined {
    const state = this.#states.get(runId);
    if (state !== undefined) {
      this.#states.delete(runId);
      this.#states.set(runId, state);
    }
    return state;
  }

  set(runId: string, state: State): void {
    this.#states.delete(runId);
    this.#states.set(runId, state);
    for (const oldest of this.#states.keys()) {
      if (this.#states.size <= this.max) break;
      this.#states.delete(oldest);
      this.evicted(oldest);
    }
  }

  drop(runId: string): void {
    this.#states.delete(runId);
  }

  clear(): void {
    this.#states.clear();
  }
}
