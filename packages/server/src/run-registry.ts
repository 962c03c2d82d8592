import type { AgentRun, RunEvent, RunRecord } from 'reins';
import { RunFeed, type FeedTiming } from './run-feed.js';
import type { TraceParent } from './trace-parent.js';

/** One run the server started: the live handle, its owner, and (once ended) its record. */
export interface RunEntry {
  readonly runId: string;
  /** The principal id that started it: the only one who may see it. */
  readonly ownerId: string;
  readonly agent: string;
  readonly run: AgentRun;
  /** Follows the run's log across pauses; `feed.phase` says whether it runs, waits or ended. */
  readonly feed: RunFeed;
  /** Aborts the signal the run was started with: the run ends `cancelled` (also while paused). */
  readonly cancel: () => void;
  /** The run's log (live, append-only, continued after a pause; kept after the end for replay). */
  readonly events: readonly RunEvent[];
  /** Settles with the final record when the run ends — not at a pause (never rejects). */
  readonly ended: Promise<RunRecord>;
  /** The final record, once the run has ended. */
  record: RunRecord | undefined;
  finishedAt: number | undefined;
  /** Clients following the run (SSE streams, JSON requests waiting for the result). */
  clients: number;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** Dropped by `forget` (its conversation was deleted): nothing is to be written for it any more. */
  forgotten: boolean;
  /**
   * Let go of by `release` (shared mode: a worker leaving a paused run, or handing a run back):
   * nothing more is stored, and its watcher stops without settling its hold.
   */
  released: boolean;
  /** The watcher following the run (metrics, spans, its hold); settles when it stops. */
  watched: Promise<void> | undefined;
  /** Closed by `release`: the run's events are no longer stored. */
  readonly gate: { open: boolean } | undefined;
  /** The run's trace id (OpenTelemetry), when it is traced: chosen at admission, or its run span's. */
  traceId: string | undefined;
  /** The caller's span (its `traceparent`) the run span is a child of; `undefined`: a trace of its own. */
  traceParent: TraceParent | undefined;
}

/** The clients following each run on every instance (the shared mode's, in Redis). */
export interface FollowerCount {
  joined(runId: string): void;
  left(runId: string): void;
  count(runId: string): Promise<number>;
}

export interface RunRegistryOptions {
  /** Finished runs kept for `GET /v1/runs/:id` and replay; default 1 000 (oldest dropped first). */
  readonly maxRetainedRuns?: number;
  /** How long a finished run is kept; default 1 hour. */
  readonly retainMs?: number;
  /**
   * How long a running run survives with no client after its last client disconnected, so a
   * client can reconnect with `Last-Event-ID`; default 0: the run is cancelled at once.
   * A paused run is never cancelled for having no client.
   */
  readonly disconnectGraceMs?: number;
  readonly now?: () => number;
  /** How the runs' feeds notice a run going on after a pause (see `RunFeed`). */
  readonly feed?: FeedTiming;
}

/**
 * The runs of this instance, in memory (embedded mode). Lookups are by owner: a run that is
 * someone else's is reported exactly like one that does not exist. Memory is bounded: live
 * runs by the runs' own limits (a paused run by its approval's expiry, after which it goes
 * on), ended ones by `maxRetainedRuns` and `retainMs`. A paused run is not finished: it stays
 * (its handle holds the pending approval) until it ends.
 */
export class RunRegistry {
  readonly #runs = new Map<string, RunEntry>();
  // The runs that have not ended (running or paused): what `size`, `unfinished` and shutdown
  // walk, so a health check polled often does not walk the ~1,000 ended runs kept for replay.
  readonly #live = new Set<RunEntry>();
  // Ended run ids in ending order (the oldest first), for eviction.
  readonly #finished = new Set<string>();
  readonly #maxRetained: number;
  readonly #retainMs: number;
  readonly #graceMs: number;
  #followers: FollowerCount | undefined;
  readonly #now: () => number;
  readonly #feedTiming: FeedTiming;

  constructor(options: RunRegistryOptions = {}) {
    this.#maxRetained = options.maxRetainedRuns ?? 1_000;
    this.#retainMs = options.retainMs ?? 3_600_000;
    this.#graceMs = options.disconnectGraceMs ?? 0;
    this.#now = options.now ?? Date.now;
    this.#feedTiming = options.feed ?? {};
  }

  add(
    runId: string,
    ownerId: string,
    agent: string,
    run: AgentRun,
    cancel: () => void,
    gate?: { open: boolean },
  ): RunEntry {
    const feed = new RunFeed(run, this.#feedTiming);
    const entry: RunEntry = {
      runId,
      ownerId,
      agent,
      run,
      feed,
      cancel: () => {
        cancel();
        feed.poke(); // a paused run resumes to end `cancelled`
      },
      events: run.events,
      // The log has ended for good, so `result` is the final record.
      ended: feed.ended.then(() => run.result).then((record) => this.#finish(entry, record)),
      record: undefined,
      finishedAt: undefined,
      clients: 0,
      graceTimer: undefined,
      forgotten: false,
      released: false,
      watched: undefined,
      gate,
      traceId: undefined,
      traceParent: undefined,
    };
    const replaced = this.#runs.get(runId);
    if (replaced !== undefined) {
      // As the map forgets it: it is neither live nor kept for replay (the sweep would take
      // the id's new entry for the ended one).
      this.#live.delete(replaced);
      this.#finished.delete(runId);
    }
    this.#runs.set(runId, entry);
    this.#live.add(entry);
    return entry;
  }

  /** The run if `ownerId` owns it; `undefined` for a missing run and for someone else's alike. */
  get(runId: string, ownerId: string): RunEntry | undefined {
    this.#sweep();
    const entry = this.#runs.get(runId);
    return entry?.ownerId === ownerId ? entry : undefined;
  }

  /**
   * Drops the owner's run from memory (its conversation was forgotten); a run still going is
   * cancelled first. Returns the dropped entry (its `ended` settles once the cancel has ended it).
   */
  forget(runId: string, ownerId: string): RunEntry | undefined {
    const entry = this.#runs.get(runId);
    if (entry?.ownerId !== ownerId) return undefined;
    return this.#stopAndDrop(entry);
  }

  /**
   * Lets go of a run another process will take from its stored log (shared mode): its store
   * gate closes first, then it is stopped in memory — nothing of that is stored, no
   * conversation turn is ended, its watcher leaves its hold as it was — and dropped.
   */
  release(runId: string): RunEntry | undefined {
    const entry = this.#runs.get(runId);
    if (entry === undefined) return undefined;
    if (entry.gate !== undefined) entry.gate.open = false;
    entry.released = true;
    return this.#stopAndDrop(entry);
  }

  /** Marks the entry forgotten (nothing more is written for it), cancels it if it runs, and drops it. */
  #stopAndDrop(entry: RunEntry): RunEntry {
    entry.forgotten = true;
    if (entry.record === undefined) entry.cancel();
    this.drop(entry.runId);
    return entry;
  }

  /**
   * Forgets a run this process only follows (shared mode: a paused run nobody is looking at):
   * nothing is stopped or written; the next request for it reads it from the store again.
   */
  drop(runId: string): void {
    const entry = this.#runs.get(runId);
    if (entry === undefined) return;
    clearTimeout(entry.graceTimer);
    this.#runs.delete(runId);
    this.#live.delete(entry);
    this.#finished.delete(runId);
  }

  /** The owner's runs that have not ended: running or paused. */
  unfinished(ownerId: string): RunEntry[] {
    return [...this.#live].filter((e) => e.ownerId === ownerId);
  }

  get size(): { live: number; paused: number; finished: number } {
    let paused = 0;
    for (const entry of this.#live) if (entry.feed.phase === 'paused') paused++;
    return { live: this.#live.size, paused, finished: this.#finished.size };
  }

  /**
   * A client starts following `entry`. Call the returned function when it stops:
   * `clientGone` true means it disconnected — the last client leaving cancels a running run
   * (after the grace period, unless another client attaches first). A paused run is not
   * cancelled: its stream ended at the pause, and it waits for its user's answer.
   */
  attach(entry: RunEntry): (clientGone: boolean) => void {
    entry.clients++;
    const followers = this.#followers;
    followers?.joined(entry.runId);
    clearTimeout(entry.graceTimer);
    entry.graceTimer = undefined;
    let detached = false;
    return (clientGone) => {
      if (detached) return;
      detached = true;
      entry.clients--;
      followers?.left(entry.runId);
      if (!clientGone || entry.clients > 0 || !running(entry)) return;
      const alone = (): boolean => entry.clients === 0 && running(entry);
      // Across instances (shared mode): only when no instance has a client left. A count that
      // cannot be read falls back to this instance's own.
      const cancel = (): void => {
        if (followers === undefined) return entry.cancel();
        followers.count(entry.runId).then(
          (count) => {
            if (count <= 0 && alone()) entry.cancel();
          },
          () => {
            if (alone()) entry.cancel();
          },
        );
      };
      if (this.#graceMs <= 0) return cancel();
      entry.graceTimer = setTimeout(() => {
        entry.graceTimer = undefined;
        if (alone()) cancel();
      }, this.#graceMs);
    };
  }

  /** Shared mode: clients are counted across instances too (see `attach`). */
  countFollowersWith(followers: FollowerCount): void {
    this.#followers = followers;
  }

  /** Cancels every run that has not ended, paused ones included (shutdown). */
  cancelAll(): void {
    for (const entry of [...this.#live]) entry.cancel();
  }

  /**
   * Shutdown of a server whose runs are stored: every run that has not ended stops doing
   * anything, and nothing more is written for it (`forgotten`): its stored log stays where it
   * was, to be resumed or answered after the next start.
   */
  abandonAll(): void {
    for (const entry of [...this.#live]) {
      entry.forgotten = true;
      entry.cancel();
    }
  }

  #finish(entry: RunEntry, record: RunRecord): RunRecord {
    entry.record = record;
    entry.finishedAt = this.#now();
    this.#live.delete(entry);
    clearTimeout(entry.graceTimer);
    entry.graceTimer = undefined;
    // A run dropped from memory, or replaced under its id, is not kept for replay: its id now
    // names another entry (or none), which the sweep must not take for this one.
    if (this.#runs.get(entry.runId) === entry) this.#finished.add(entry.runId);
    this.#sweep();
    return record;
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

const running = (entry: RunEntry): boolean => entry.feed.phase === 'running';
