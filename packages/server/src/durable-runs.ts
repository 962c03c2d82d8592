import { interruptedEnding, isPausedStatus, resolveLimits, type LoadedRun, type RunStore } from 'reins';
import type { Logger } from './logging.js';
import type { ServerMetrics } from './metrics.js';
import { launchRun, readRequestRecord, requestRecord, storedTraceId, type RunRequest } from './launch-run.js';
import type { RunEntry } from './run-registry.js';
import type { ServerState } from './server-state.js';
import { StoredRun, holdEndedRun } from './stored-run.js';
import { SharedByKey } from './shared-by-key.js';

export interface DurableRunsOptions {
  /** Where runs and their event logs are kept (`memoryRunStore()`, or `sqlRunStore` of `@reins/stores`). */
  readonly store: RunStore;
  /** Resume runs found running at start (default true); off: they end `stopped` / `interrupted` with a notice. */
  readonly resume?: boolean;
  /** Ended runs older than this many days are deleted by the sweep; default 30 (`REINS_RUN_RETENTION_DAYS`). */
  readonly retentionDays?: number;
  /** How long the store may fail before a run's events are shown unstored; default 5 000 ms. */
  readonly releaseAfterMs?: number;
}

/** What `recover()` found and did. */
export interface RecoveryReport {
  readonly resumed: number;
  readonly rebuiltPaused: number;
  readonly interrupted: number;
  readonly failed: number;
}

const DAY_MS = 86_400_000;

/** A run read back from the store, and what was done with it. */
interface Loaded {
  readonly entry: RunEntry;
  readonly how: 'held' | 'ended' | 'resumed' | 'rebuilt_paused' | 'interrupted' | 'failed';
}

/**
 * The server's durable runs: each run is created in the store before it starts and its events
 * are stored before any client sees them; a run this process does not hold is read back from
 * the store for its owner — replayed if it ended, rebuilt live (and so answerable,
 * cancellable) if it is paused or was running. History is the truth; the registry is a cache.
 */
export class DurableRuns {
  readonly #store: RunStore;
  readonly #options: DurableRunsOptions;
  readonly #logger: Logger;
  readonly #metrics: ServerMetrics;
  readonly #loading = new SharedByKey<Loaded>();
  readonly #reading = new SharedByKey<LoadedRun | undefined>();
  #recovering: Promise<RecoveryReport> | undefined;
  #closed = false;
  /** Writes under way, and when one last succeeded and last failed (`performance.now()`): for the health check. */
  #writing = 0;
  #lastWriteOk = -Infinity;
  #lastWriteFailed = -Infinity;

  constructor(options: DurableRunsOptions, logger: Logger, metrics: ServerMetrics) {
    this.#store = options.store;
    this.#options = options;
    this.#logger = logger;
    this.#metrics = metrics;
  }

  get store(): RunStore {
    return this.#store;
  }

  /**
   * While writes are under way: how long ago the store last took one, when none has failed
   * since. A store that keeps storing events works, however long a health query would wait
   * behind them (busy is not down). `undefined` when nothing is being written (a query is then
   * cheap, and an outage with no traffic must still show), and after a failed write.
   */
  busyWriteAgoMs(): number | undefined {
    if (this.#writing === 0 || this.#lastWriteFailed >= this.#lastWriteOk) return undefined;
    return performance.now() - this.#lastWriteOk;
  }

  #wrote<T>(write: Promise<T>): Promise<T> {
    this.#writing++;
    return write.then(
      (value) => {
        this.#writing--;
        this.#lastWriteOk = performance.now();
        return value;
      },
      (error: unknown) => {
        this.#writing--;
        this.#lastWriteFailed = performance.now();
        throw error;
      },
    );
  }

  /**
   * The `durable` option of a run: its events go to the store — nothing after `close`, nor
   * once `gate` is closed (this process let go of the run: another one takes it from its log).
   */
  sinkFor(runId: string, gate: { readonly open: boolean } = { open: true }) {
    return {
      sink: (events: Parameters<RunStore['append']>[1]) =>
        this.#closed || !gate.open ? Promise.resolve() : this.#wrote(this.#store.append(runId, events)),
      ...(this.#options.releaseAfterMs === undefined ? {} : { releaseAfterMs: this.#options.releaseAfterMs }),
      onError: (error: unknown) => {
        this.#metrics.runStoreFailures.inc();
        this.#logger.warn({ runId, err: error }, 'run store write failed: retrying');
      },
    };
  }

  /** Creates the run's row before it starts (its request is what rebuilds it). */
  create(runId: string, request: RunRequest, createdAt: number): Promise<void> {
    return this.#wrote(
      this.#store.create({
        runId,
        ownerId: request.principal.id,
        agent: request.agent,
        conversationId: request.conversationId,
        request: requestRecord(request),
        createdAt,
      }),
    );
  }

  /** The run for its owner: held here, or read back from the store (see the class comment). */
  find(s: ServerState, runId: string, ownerId: string): Promise<RunEntry | undefined> {
    const held = s.registry.get(runId, ownerId);
    if (held !== undefined) return Promise.resolve(held);
    return this.#loadOnce(s, runId, ownerId).then((found) =>
      found?.entry.ownerId === ownerId ? found.entry : undefined,
    );
  }

  /**
   * After a restart: every run the store has running is resumed (or, with `resume: false`,
   * ended `interrupted`), every paused one rebuilt to wait for its answer. Runs once: a second
   * call gets the first one's report.
   */
  recover(s: ServerState): Promise<RecoveryReport> {
    return (this.#recovering ??= this.#recover(s).catch((error: unknown) => {
      this.#recovering = undefined; // the store failed: a later call may try again
      throw error;
    }));
  }

  async #recover(s: ServerState): Promise<RecoveryReport> {
    let resumed = 0;
    let rebuiltPaused = 0;
    let interrupted = 0;
    let failed = 0;
    for (const run of await this.#store.unfinished()) {
      if (s.registry.get(run.runId, run.ownerId) !== undefined) continue;
      try {
        // Shared with a request for the same run meanwhile: it is rebuilt once.
        const found = await this.#loadOnce(s, run.runId);
        const how = found?.how;
        if (how === undefined || how === 'held' || how === 'ended') continue;
        if (how === 'interrupted') interrupted++;
        else if (how === 'failed') failed++;
        else if (how === 'rebuilt_paused') rebuiltPaused++;
        else resumed++;
        this.#metrics.runsRecovered.inc({ how });
      } catch (error) {
        failed++;
        this.#metrics.runsRecovered.inc({ how: 'failed' });
        this.#logger.error({ runId: run.runId, err: error }, 'could not recover run');
      }
    }
    const report = { resumed, rebuiltPaused, interrupted, failed };
    this.#logger.info(report, 'runs recovered from the run store');
    return report;
  }

  /** Deletes runs that ended more than `retentionDays` ago; counts them in the metrics. */
  async sweep(now: number): Promise<number> {
    const days = this.#options.retentionDays ?? 30;
    const deleted = await this.#store.sweep(now - days * DAY_MS);
    this.#metrics.runsSwept.inc(deleted);
    if (deleted > 0) this.#logger.info({ deleted, retentionDays: days }, 'old runs swept');
    return deleted;
  }

  /** Stops storing: runs still held in memory are left where their stored log says (resumed on the next start). */
  close(): void {
    this.#closed = true;
  }

  /**
   * A run read back from the store and held, one at a time per run: concurrent callers share
   * the read and what follows (a run is never rebuilt twice). With `ownerId` (a request), another
   * user's run is left as stored: not rebuilt, resumed or held on a stranger's request.
   */
  #loadOnce(s: ServerState, runId: string, ownerId?: string): Promise<Loaded | undefined> {
    const loading = this.#loading.get(runId);
    if (loading !== undefined) return loading;
    return this.#reading
      .run(runId, () => this.#store.load(runId))
      .then((loaded) =>
        loaded === undefined || (ownerId !== undefined && loaded.run.ownerId !== ownerId)
          ? undefined
          : this.#loading.run(runId, () => this.#load(s, loaded)),
      );
  }

  /**
   * A run this process does not hold, as read from the store: replayed if it ended; rebuilt
   * live if paused or running (with `resume: false` a running one is ended `interrupted`, as at
   * start).
   */
  async #load(s: ServerState, loaded: LoadedRun): Promise<Loaded> {
    const { run } = loaded;
    const runId = run.runId;
    const held = s.registry.get(runId, run.ownerId);
    if (held !== undefined) return { entry: held, how: 'held' };
    const paused = isPausedStatus(run.status);
    if (run.status === 'running' && this.#options.resume === false) {
      return { entry: await this.#endInterrupted(s, loaded), how: 'interrupted' };
    }
    if (run.status === 'running' || paused) {
      const rebuilt = await this.rebuild(s, loaded);
      return { ...rebuilt, how: rebuilt.how ?? (paused ? 'rebuilt_paused' : 'resumed') };
    }
    return { entry: holdEndedRun(s.registry, loaded), how: 'ended' };
  }

  /**
   * Rebuilds a paused or interrupted run from its log (a run with no event yet is started); a
   * run that cannot be rebuilt is ended `interrupted`. A worker of the shared mode watches it
   * `until` its next stop.
   */
  async rebuild(
    s: ServerState,
    loaded: LoadedRun,
    until: 'stop' | 'end' = 'end',
  ): Promise<{ entry: RunEntry; how?: 'failed' }> {
    const { run, events } = loaded;
    const request = readRequestRecord(run.agent, run.request);
    const definition = s.agents.get(run.agent);
    if (request === undefined || definition === undefined) {
      this.#logger.error(
        { runId: run.runId, agent: run.agent },
        'run cannot be rebuilt (agent gone or request unreadable): ended interrupted',
      );
      return { entry: await this.#endInterrupted(s, loaded), how: 'failed' };
    }
    const resolved = typeof definition === 'function' ? await definition(request.principal) : definition;
    this.#logger.info(
      { runId: run.runId, status: run.status, events: events.length },
      'run rebuilt from its log',
    );
    const entry = launchRun(s, resolved, request, run.runId, {
      history: events.length === 0 ? undefined : events, // no event yet: a run queued, started now
      until,
    });
    // A paused run can be answered once its replay has reached the pause (a moment): whoever
    // asked for it (a request answering it, `recover()`) waits for that, at most `stopWaitMs`.
    if (isPausedStatus(run.status)) await within(entry.run.result, s.limits.stopWaitMs);
    return { entry };
  }

  /** Ends the run `interrupted` in the store, holds it as ended, and ends its conversation turn so. */
  async #endInterrupted(s: ServerState, loaded: LoadedRun): Promise<RunEntry> {
    const { run } = loaded;
    const ended = await this.#interrupt(loaded);
    const stored = new StoredRun(run.runId, ended);
    const entry = s.registry.add(run.runId, run.ownerId, run.agent, stored, () => undefined);
    entry.traceId = storedTraceId(run.request);
    const start = ended[0];
    // Settled: the hold and slot its crashed instance left are given back (else they lapse).
    const budget = { maxSteps: 0, deadlineMs: 0, approvalTtlMs: 0 };
    await s.quota.rebuilt(run.ownerId, run.runId, start?.at ?? Date.now(), budget).end();
    if (run.conversationId !== undefined && s.conversations !== undefined && start?.type === 'start') {
      const definition = s.agents.get(run.agent);
      const about = typeof definition === 'object' ? definition.turnAbout : undefined;
      const turn = { runId: run.runId, query: start.query, at: start.at };
      await s.conversations.end(run.ownerId, run.conversationId, turn, await stored.result, about);
    }
    return entry;
  }

  async #interrupt(loaded: LoadedRun): Promise<LoadedRun['events']> {
    const { run, events } = loaded;
    const start = events[0];
    const limits = start?.type === 'start' ? start.limits : resolveLimits({});
    // A run killed before its `start` was stored: its ending starts its log from what it was asked.
    const query = readRequestRecord(run.agent, run.request)?.query ?? '';
    const asked = { agent: run.agent, query, conversationId: run.conversationId };
    const ending = interruptedEnding(run.runId, events, limits, Date.now(), asked);
    await this.#store.append(run.runId, ending);
    return [...events, ...ending];
  }
}

/** Settles when `promise` does, or after `ms`, whichever comes first. */
function within(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
