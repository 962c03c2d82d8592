import type { CheckResult, HealthCheck, HealthReport } from './health.js';

export interface HealthMonitorOptions {
  /** The checks as of now (read at every refresh: a model seen for the first time adds one). */
  readonly checks: () => ReadonlyMap<string, HealthCheck>;
  /** Checks without which nothing can be served: one down makes the report `unavailable`. */
  readonly required?: ReadonlySet<string>;
  /** How often every check runs in the background; default 5 000 ms. */
  readonly intervalMs?: number;
  /** How long one check may take before it counts as down; default 1 000 ms. */
  readonly deadlineMs?: number;
  /**
   * A result older than this counts as down; default 3 × `intervalMs` + `deadlineMs` (a
   * result is normally at most one interval plus one deadline old).
   */
  readonly staleAfterMs?: number;
  /** Wall clock (epoch ms), for `checkedAt`. */
  readonly now?: () => number;
  /** Monotonic clock (ms), for ages and latencies (a wall-clock jump makes nothing stale). */
  readonly clock?: () => number;
}

interface Entry {
  result?: CheckResult;
  /** Monotonic and wall time of `result`. */
  at: number;
  wallAt: number;
  /** The check's call has not settled yet (a second one is not started meanwhile). */
  busy: boolean;
  /** Monotonic time the call under way (or the last one) started. */
  startedAt: number;
  /** Resolves once the call under way has a result, or its deadline passed. */
  recorded: Promise<void>;
}

/**
 * `/health` without waiting on a dependency: every check runs in the background every
 * `intervalMs`, under `deadlineMs`, at most one call per check at a time (a hung check is `down`
 * from its deadline on and is not called again until it settles — calls do not pile up).
 *
 * `report()` answers from those results. It also starts a refresh of every check not under way
 * and takes the results that arrive within the same turn of the event loop, so what is known in
 * memory (breakers, model failures, a store that fails at once) is always current, while a slow
 * dependency is reported as of its last answer, with its age. Only a check that has never
 * answered is waited for (once, bounded by the deadline). A result older than `staleAfterMs`
 * counts as `down` (the refresh could not run: the event loop was blocked, or a call hangs).
 */
export class HealthMonitor {
  readonly #checks: () => ReadonlyMap<string, HealthCheck>;
  readonly #required: ReadonlySet<string>;
  readonly #intervalMs: number;
  readonly #deadlineMs: number;
  readonly #staleAfterMs: number;
  readonly #now: () => number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, Entry>();
  /** The deadline timer of every call under way, with what it does when it fires. */
  readonly #deadlines = new Map<ReturnType<typeof setTimeout>, (detail?: string) => void>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  constructor(options: HealthMonitorOptions) {
    this.#checks = options.checks;
    this.#required = options.required ?? new Set();
    this.#intervalMs = options.intervalMs ?? 5_000;
    this.#deadlineMs = options.deadlineMs ?? 1_000;
    this.#staleAfterMs = options.staleAfterMs ?? 3 * this.#intervalMs + this.#deadlineMs;
    this.#now = options.now ?? Date.now;
    this.#clock = options.clock ?? (() => performance.now());
  }

  /** Refreshes every check every `intervalMs` from now on (the timer does not hold the process open). */
  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => this.refresh(), this.#intervalMs);
    this.#timer.unref();
  }

  /**
   * Stops the background refresh, and ends every deadline timer now (a call still under way
   * counts as down at once). Later reports still refresh on request.
   */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const [timer, fire] of [...this.#deadlines]) {
      clearTimeout(timer);
      fire('no answer before the health monitor stopped');
    }
  }

  /** Starts every check that is not under way (without waiting for any). */
  refresh(): ReadonlyMap<string, HealthCheck> {
    const checks = this.#checks();
    for (const [name, check] of checks) this.#run(name, check);
    return checks;
  }

  async report(uptimeS: number): Promise<HealthReport> {
    const checks = this.refresh();
    // What the checks know without I/O (sync checks, promises already settled) lands in this turn.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(
      [...checks.keys()].map((name) => {
        const entry = this.#entries.get(name);
        return entry === undefined || entry.result !== undefined ? undefined : entry.recorded;
      }),
    );
    const results = [...checks.keys()].map((name) => [name, this.#view(name)] as const);
    const down = results.filter(([, r]) => r.status === 'down').map(([name]) => name);
    const critical = down.filter((name) => this.#required.has(name));
    const status = critical.length > 0 ? 'unavailable' : down.length > 0 ? 'degraded' : 'ok';
    return {
      status,
      uptimeS,
      ...(down.length === 0
        ? {}
        : { down: [...critical, ...down.filter((name) => !this.#required.has(name))] }),
      checks: Object.fromEntries(results),
    };
  }

  #view(name: string): CheckResult {
    const entry = this.#entries.get(name);
    const result = entry?.result;
    if (entry === undefined || result === undefined) return { status: 'down', detail: 'not checked yet' };
    const ageMs = Math.max(0, Math.round(this.#clock() - entry.at));
    const checkedAt = new Date(entry.wallAt).toISOString();
    if (ageMs <= this.#staleAfterMs) return { ...result, ageMs, checkedAt };
    const last = `${result.status}${result.detail === undefined ? '' : `: ${result.detail}`}`;
    const runningMs = Math.round(this.#clock() - entry.startedAt);
    const still = entry.busy && runningMs > this.#deadlineMs ? `; a call under way for ${runningMs} ms` : '';
    return {
      status: 'down',
      detail: `stale: no result for ${ageMs} ms (over ${this.#staleAfterMs} ms${still}); last: ${last}`,
      ageMs,
      checkedAt,
    };
  }

  #run(name: string, check: HealthCheck): void {
    const known = this.#entries.get(name);
    if (known?.busy === true) return;
    const started = this.#clock();
    const entry: Entry = known ?? {
      at: 0,
      wallAt: 0,
      busy: true,
      startedAt: started,
      recorded: Promise.resolve(),
    };
    this.#entries.set(name, entry);
    entry.busy = true;
    entry.startedAt = started;
    const record = (result: CheckResult): void => {
      entry.result = result;
      entry.at = this.#clock();
      entry.wallAt = this.#now();
    };
    entry.recorded = new Promise<void>((resolve) => {
      let timedOut = false;
      const fire = (detail = `no answer within ${this.#deadlineMs} ms`): void => {
        this.#deadlines.delete(deadline);
        timedOut = true;
        record({ status: 'down', detail });
        resolve();
      };
      const deadline = setTimeout(() => fire(), this.#deadlineMs);
      deadline.unref();
      this.#deadlines.set(deadline, fire);
      void Promise.resolve()
        .then(check)
        .then(
          (result): CheckResult => {
            const latencyMs = Math.round(this.#clock() - started);
            return result === undefined ? { status: 'up', latencyMs } : { latencyMs, ...result };
          },
          (thrown: unknown): CheckResult => ({
            status: 'down',
            detail: thrown instanceof Error ? thrown.message : String(thrown),
          }),
        )
        .then((result) => {
          clearTimeout(deadline);
          this.#deadlines.delete(deadline);
          entry.busy = false;
          // A late answer does not overwrite the deadline's `down`: the next refresh decides.
          if (!timedOut) record(result);
          resolve();
        });
    });
  }
}
