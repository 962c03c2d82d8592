import type { AgentRun, RunEvent, RunRecord } from 'reins';

/** One run the server started: the live handle, its owner, and (once done) its record. */
export interface RunEntry {
  readonly runId: string;
  /** The principal id that started it: the only one who may see it. */
  readonly ownerId: string;
  readonly agent: string;
  readonly run: AgentRun;
  /** Aborts the signal the run was started with: the run ends `cancelled`. */
  readonly cancel: () => void;
  /** The run's log (live, append-only; kept after the run ends for replay). */
  readonly events: readonly RunEvent[];
  /** Settles with the record when the run ends (never rejects). */
  readonly done: Promise<RunRecord>;
  record: RunRecord | undefined;
  finishedAt: number | undefined;
  /** Clients following the run (SSE streams, JSON requests waiting for the result). */
  clients: number;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
}

export interface RunRegistryOptions {
  /** Finished runs kept for `GET /v1/runs/:id` and replay; default 1 000 (oldest dropped first). */
  readonly maxRetainedRuns?: number;
  /** How long a finished run is kept; default 1 hour. */
  readonly retainMs?: number;
  /**
   * How long a live run survives with no client after its last client disconnected, so a
   * client can reconnect with `Last-Event-ID`; default 0: the run is cancelled at once.
   */
  readonly disconnectGraceMs?: number;
  readonly now?: () => number;
}

/**
 * The runs of this instance, in memory (embedded mode). Lookups are by owner: a run that is
 * someone else's is reported exactly like one that does not exist. Memory is bounded: live
 * runs by the runs' own limits, finished ones by `maxRetainedRuns` and `retainMs`.
 */
export class RunRegistry {
  readonly #runs = new Map<string, RunEntry>();
  // Finished run ids in finishing order (the oldest first), for eviction.
  readonly #finished = new Set<string>();
  readonly #maxRetained: number;
  readonly #retainMs: number;
  readonly #graceMs: number;
  readonly #now: () => number;

  constructor(options: RunRegistryOptions = {}) {
    this.#maxRetained = options.maxRetainedRuns ?? 1_000;
    this.#retainMs = options.retainMs ?? 3_600_000;
    this.#graceMs = options.disconnectGraceMs ?? 0;
    this.#now = options.now ?? Date.now;
  }

  add(runId: string, ownerId: string, agent: string, run: AgentRun, cancel: () => void): RunEntry {
    const entry: RunEntry = {
      runId,
      ownerId,
      agent,
      run,
      cancel,
      events: run.events,
      done: run.result,
      record: undefined,
      finishedAt: undefined,
      clients: 0,
      graceTimer: undefined,
    };
    this.#runs.set(runId, entry);
    void entry.done.then((record) => this.#finish(entry, record));
    return entry;
  }

  /** The run if `ownerId` owns it; `undefined` for a missing run and for someone else's alike. */
  get(runId: string, ownerId: string): RunEntry | undefined {
    this.#sweep();
    const entry = this.#runs.get(runId);
    return entry?.ownerId === ownerId ? entry : undefined;
  }

  /** The owner's runs that have not ended. */
  inFlight(ownerId: string): RunEntry[] {
    return [...this.#runs.values()].filter((e) => e.ownerId === ownerId && e.record === undefined);
  }

  get size(): { live: number; finished: number } {
    return { live: this.#runs.size - this.#finished.size, finished: this.#finished.size };
  }

  /**
   * A client starts following `entry`. Call the returned function when it stops:
   * `clientGone` true means it disconnected — the last client leaving cancels a live run
   * (after the grace period, unless another client attaches first).
   */
  attach(entry: RunEntry): (clientGone: boolean) => void {
    entry.clients++;
    clearTimeout(entry.graceTimer);
    entry.graceTimer = undefined;
    let detached = false;
    return (clientGone) => {
      if (detached) return;
      detached = true;
      entry.clients--;
      if (!clientGone || entry.clients > 0 || entry.record !== undefined) return;
      if (this.#graceMs <= 0) return entry.cancel();
      entry.graceTimer = setTimeout(() => {
        entry.graceTimer = undefined;
        if (entry.clients === 0) entry.cancel();
      }, this.#graceMs);
    };
  }

  /** Cancels every live run (shutdown). */
  cancelAll(): void {
    for (const entry of this.#runs.values()) if (entry.record === undefined) entry.cancel();
  }

  #finish(entry: RunEntry, record: RunRecord): void {
    entry.record = record;
    entry.finishedAt = this.#now();
    clearTimeout(entry.graceTimer);
    entry.graceTimer = undefined;
    this.#finished.add(entry.runId);
    this.#sweep();
  }

  #sweep(): void {
    const oldestKept = this.#now() - this.#retainMs;
    for (const runId of this.#finished) {
      const entry = this.#runs.get(runId);
      const expired = entry === undefined || (entry.finishedAt ?? 0) < oldestKept;
      if (!expired && this.#finished.size <= this.#maxRetained) return;
      this.#finished.delete(runId);
      this.#runs.delete(runId);
    }
  }
}
