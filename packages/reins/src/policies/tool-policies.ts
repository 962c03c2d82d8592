import type { BulkheadPolicy, CircuitBreakerPolicy, ConsecutiveBreaker } from 'cockatiel';
import { cockatielNow, loadCockatiel, type Cockatiel } from './lazy-cockatiel.js';
import type { ErrorCode } from '../errors.js';
import type { BreakerStore } from './breaker-store.js';
import {
  isBreakerFailure,
  type AttemptResult,
  type BreakerState,
  type ResolvedBreaker,
} from './attempt-result.js';
import { probeLater, probeThrough } from './breaker-probe.js';
import { SharedBreaker } from './shared-breaker.js';
import type { AnyTool, ToolPolicy } from '../tool.js';

/** A tool policy with every default filled in. */
export type { ResolvedBreaker } from './attempt-result.js';

export interface ResolvedPolicy {
  readonly retries: number;
  readonly breaker: false | ResolvedBreaker;
  readonly concurrency: number | undefined;
}

export const DEFAULT_TOOL_POLICY: ResolvedPolicy = Object.freeze({
  retries: 2,
  breaker: Object.freeze({ failures: 3, openMs: 300_000 }),
  concurrency: undefined,
});

/** Codes worth another attempt: the service may answer next time. A timeout is not retried (it spent the budget). */
export const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['SERVICE_UNAVAILABLE', 'RATE_LIMITED']);
export { BREAKER_FAILURES, type AttemptResult, type BreakerState } from './attempt-result.js';

/** One guarded call, for metrics: which tool, how it ended, how long, how many attempts. */
export interface ToolCallReport {
  readonly tool: string;
  readonly status: 'ok' | 'error' | 'timeout' | 'rejected';
  readonly code?: ErrorCode | undefined;
  readonly durationMs: number;
  readonly attempts: number;
}

export interface ToolPoliciesOptions {
  /** Per tool name: replaces the tool's own policy fields that are given. */
  readonly overrides?: Readonly<Record<string, ToolPolicy>>;
  /** Metrics hook: every call, after its last attempt. What it throws is ignored. */
  onCall?(report: ToolCallReport): void;
  /** Metrics hook: a tool's breaker changed state. What it throws is ignored. */
  onBreaker?(tool: string, state: BreakerState): void;
  /**
   * Shared breakers (e.g. `redisBreakerStore` from `@reins/server`): every instance sees one
   * breaker per tool. Absent: cockatiel breakers in this process. The concurrency cap stays
   * per process either way.
   */
  readonly breakers?: BreakerStore;
}

/**
 * The guard state of one tool: its breaker and concurrency cap (cockatiel), shared by all runs.
 * cockatiel is loaded on first need (see `lazy-cockatiel.ts`): the guard makes its policies as
 * soon as it is in hand, and until then counts the tool's failures itself; they are replayed
 * into the breaker when it is made, and no guarded attempt runs before that.
 */
export class ToolGuard {
  readonly policy: ResolvedPolicy;
  #breaker: CircuitBreakerPolicy | undefined;
  #counter: ConsecutiveBreaker | undefined;
  #bulkhead: BulkheadPolicy | undefined;
  readonly #shared: SharedBreaker | undefined;
  /** cockatiel, once the policies that need it are made. */
  #cockatiel: Cockatiel | undefined;
  /** Failures that ran directly before cockatiel was loaded (in a row: a success would not run directly). */
  #early: AttemptResult[] | undefined;
  #making: Promise<void> | undefined;
  readonly #onBreaker: ((tool: string, state: BreakerState) => void) | undefined;

  constructor(
    readonly tool: string,
    policy: ResolvedPolicy,
    onBreaker: ((tool: string, state: BreakerState) => void) | undefined,
    shared?: BreakerStore,
  ) {
    this.policy = policy;
    this.#onBreaker = onBreaker;
    if (policy.breaker !== false && shared !== undefined) {
      this.#shared = new SharedBreaker(tool, policy.breaker, shared, onBreaker);
      const sharedBreaker = this.#shared;
      if (policy.breaker.probe !== undefined) sharedBreaker.probeWhenOpen(policy.breaker.probe);
    }
    if (cockatielNow() !== undefined) void this.#ready();
  }

  /** A local breaker or a concurrency cap: what cockatiel does here. */
  get #needsCockatiel(): boolean {
    return (
      (this.policy.breaker !== false && this.#shared === undefined) || this.policy.concurrency !== undefined
    );
  }

  /** Makes the policies; settles once the early failures (if any) have reached the breaker. */
  #make(cockatiel: Cockatiel): Promise<unknown> | undefined {
    if (this.#cockatiel !== undefined) return undefined;
    this.#cockatiel = cockatiel;
    const { policy, tool } = this;
    const onBreaker = this.#onBreaker;
    if (policy.breaker !== false && this.#shared === undefined) {
      this.#counter = new cockatiel.ConsecutiveBreaker(policy.breaker.failures);
      // The breaker judges returned attempts (failures are data here, not exceptions).
      this.#breaker = cockatiel.circuitBreaker(
        cockatiel.handleWhenResult((result) => isBreakerFailure(result)),
        { halfOpenAfter: policy.breaker.openMs, breaker: this.#counter },
      );
      if (onBreaker !== undefined) {
        this.#breaker.onStateChange((state) => onBreaker(tool, breakerState(state, cockatiel)));
      }
      const { probe, openMs } = policy.breaker;
      const breaker = this.#breaker;
      if (probe !== undefined)
        breaker.onBreak(() => probeLater(openMs, () => probeThrough(breaker, probe, openMs)));
    }
    if (policy.concurrency !== undefined) this.#bulkhead = cockatiel.bulkhead(policy.concurrency, 0);
    const early = this.#early;
    this.#early = undefined;
    const breaker = this.#breaker;
    if (early === undefined || breaker === undefined) return undefined;
    return Promise.all(early.map((result) => breaker.execute(() => result).catch(() => undefined)));
  }

  /** Settles once the policies are made and told of the early failures (`undefined`: they are, or none are needed). */
  #ready(): Promise<void> | undefined {
    if (!this.#needsCockatiel) return undefined;
    if (this.#cockatiel === undefined && this.#making === undefined) {
      const loaded = cockatielNow();
      const made = loaded !== undefined ? this.#make(loaded) : loadCockatiel().then((c) => this.#make(c));
      if (made !== undefined) {
        const making = made.then(() => {
          if (this.#making === making) this.#making = undefined;
        });
        this.#making = making;
      }
    }
    return this.#making;
  }

  /** With shared breakers: the state this instance last saw. */
  get breakerState(): BreakerState {
    if (this.#shared !== undefined) return this.#shared.state;
    const cockatiel = this.#cockatiel;
    if (this.#breaker === undefined || cockatiel === undefined) {
      // Before cockatiel is in hand: what the breaker will say once the early failures reach it.
      const { breaker } = this.policy;
      return breaker !== false && (this.#early?.length ?? 0) >= breaker.failures ? 'open' : 'closed';
    }
    return breakerState(this.#breaker.state, cockatiel);
  }

  /**
   * True when an attempt may run directly, without going through the policies: the breaker
   * is closed with no failure counted and there is no concurrency cap. Then a success changes
   * no state, and the call can stay synchronous.
   */
  get direct(): boolean {
    const breaker = this.#breaker;
    return (
      this.policy.concurrency === undefined &&
      this.#shared === undefined &&
      this.#early === undefined &&
      (breaker === undefined ||
        (breaker.state === this.#cockatiel?.CircuitState.Closed && this.#counter?.state === 0))
    );
  }

  /**
   * Runs one attempt through the concurrency cap and the breaker. An open breaker or a full
   * cap refuses without calling `attempt`, as data. `stillRunning`, asked once the attempt
   * has an outcome: the tool's own promise when the act stopped waiting for it (a timeout, a
   * cancel) — the call keeps its place in the cap until that settles, as it is still running.
   */
  async run<T extends AttemptResult>(
    attempt: () => T | Promise<T>,
    refused: (code: ErrorCode, why: string) => T,
    stillRunning?: () => Promise<unknown> | undefined,
  ): Promise<T> {
    const ready = this.#ready();
    if (ready !== undefined) await ready;
    const cockatiel = this.#cockatiel;
    const shared = this.#shared;
    const bulkhead = this.#bulkhead;
    /** Inside the cap: the attempt, then the wait for an abandoned call to end. */
    const inCap = async (guarded: () => Promise<T>): Promise<T> => {
      try {
        return await guarded();
      } finally {
        const running = stillRunning?.();
        if (running !== undefined) await running.catch(() => undefined);
      }
    };
    if (shared !== undefined) {
      const guarded = () => shared.run(attempt, refused);
      if (bulkhead === undefined) return guarded();
      try {
        return await bulkhead.execute(() => inCap(guarded));
      } catch (thrown) {
        if (cockatiel === undefined || !(thrown instanceof cockatiel.BulkheadRejectedError)) throw thrown;
        return refused('RATE_LIMITED', `${this.tool} is already running ${this.policy.concurrency} calls`);
      }
    }
    const breaker = this.#breaker;
    // A call the run stopped (deadline, cancel) is no verdict on the tool: it must neither
    // count as a failure nor reset the count — except that a half-open probe cut short
    // proves nothing, so the breaker opens again rather than closing.
    const judged = async (): Promise<T> => {
      const result = await attempt();
      if (result.byRun !== true || breaker === undefined) return result;
      if (breaker.state === cockatiel?.CircuitState.HalfOpen) return { ...result, probeCut: true };
      throw new NoVerdict(result);
    };
    const guarded = breaker === undefined ? async () => attempt() : () => breaker.execute(judged);
    try {
      return bulkhead === undefined ? await guarded() : await bulkhead.execute(() => inCap(guarded));
    } catch (thrown) {
      if (thrown instanceof NoVerdict) return thrown.result as T;
      if (cockatiel === undefined) throw thrown;
      if (thrown instanceof cockatiel.BulkheadRejectedError) {
        return refused('RATE_LIMITED', `${this.tool} is already running ${this.policy.concurrency} calls`);
      }
      if (
        thrown instanceof cockatiel.BrokenCircuitError ||
        thrown instanceof cockatiel.IsolatedCircuitError
      ) {
        return refused(
          'SERVICE_UNAVAILABLE',
          `${this.tool} is failing: its circuit breaker is open, so it was not called`,
        );
      }
      throw thrown;
    }
  }

  /** Tells the breaker about an attempt that ran directly and failed (a success changes nothing). */
  recordDirectFailure(result: AttemptResult): void {
    if (this.policy.breaker === false || this.#shared !== undefined) return;
    if (result.byRun === true || !isBreakerFailure(result)) return;
    if (this.#breaker === undefined) {
      (this.#early ??= []).push(result); // told to the breaker when it is made
      void this.#ready()?.catch(() => undefined);
      return;
    }
    void this.#breaker.execute(() => result).catch(() => undefined);
  }
}

/** Carries an attempt the breaker must not judge past cockatiel (an error it does not handle). */
class NoVerdict extends Error {
  constructor(readonly result: AttemptResult) {
    super('no verdict');
  }
}

function breakerState(state: CircuitBreakerPolicy['state'], cockatiel: Cockatiel): BreakerState {
  if (state === cockatiel.CircuitState.Closed) return 'closed';
  return state === cockatiel.CircuitState.HalfOpen ? 'half_open' : 'open';
}

/**
 * The guards of an app's tools (by tool object), with configuration overrides and metrics
 * hooks. Breakers live here, so they outlast a run: create one per app (runs without one
 * share `defaultToolPolicies`).
 */
/** `hook`, except that what it throws is dropped (`undefined` stays `undefined`). */
function quietly<A extends unknown[]>(
  hook: ((...args: A) => void) | undefined,
): ((...args: A) => void) | undefined {
  if (hook === undefined) return undefined;
  return (...args: A): void => {
    try {
      hook(...args);
    } catch {
      // a metrics hook's failure is the metrics', not the run's
    }
  };
}

export class ToolPolicies {
  readonly #guards = new WeakMap<AnyTool, ToolGuard>();
  readonly #options: ToolPoliciesOptions;

  constructor(options: ToolPoliciesOptions = {}) {
    for (const [name, policy] of Object.entries(options.overrides ?? {})) checkPolicy(name, policy);
    // The metrics hooks cannot change what a run does: one that throws is ignored (it failed a
    // call that had succeeded, or ended a run mid-step with its other calls still running).
    this.#options = {
      ...options,
      onCall: quietly(options.onCall?.bind(options)),
      onBreaker: quietly(options.onBreaker?.bind(options)),
    };
  }

  guardFor(tool: AnyTool): ToolGuard {
    let guard = this.#guards.get(tool);
    if (guard === undefined) {
      guard = new ToolGuard(tool.name, this.policyOf(tool), this.#options.onBreaker, this.#options.breakers);
      this.#guards.set(tool, guard);
    }
    return guard;
  }

  /** The tool's policy: its own fields, then the app's overrides, then the defaults. */
  policyOf(tool: AnyTool): ResolvedPolicy {
    const own = tool.policy ?? {};
    const override = this.#options.overrides?.[tool.name] ?? {};
    const breaker = override.breaker ?? own.breaker;
    return {
      retries: tool.readOnly ? (override.retries ?? own.retries ?? DEFAULT_TOOL_POLICY.retries) : 0,
      breaker:
        breaker === false
          ? false
          : {
              failures: breaker?.failures ?? (DEFAULT_TOOL_POLICY.breaker as { failures: number }).failures,
              openMs: breaker?.openMs ?? (DEFAULT_TOOL_POLICY.breaker as { openMs: number }).openMs,
              // An override that sets the numbers keeps the tool's own probe.
              ...(probeOf(override.breaker, own.breaker) === undefined
                ? {}
                : { probe: probeOf(override.breaker, own.breaker) }),
            },
      concurrency: override.concurrency ?? own.concurrency,
    };
  }

  /** True when someone listens to `report` (so callers need not build a report for nobody). */
  get reporting(): boolean {
    return this.#options.onCall !== undefined;
  }

  report(report: ToolCallReport): void {
    this.#options.onCall?.(report);
  }
}

function probeOf(
  ...breakers: (ToolPolicy['breaker'] | undefined)[]
): (() => boolean | Promise<boolean>) | undefined {
  for (const breaker of breakers)
    if (breaker !== undefined && breaker !== false && breaker.probe !== undefined) return breaker.probe;
  return undefined;
}

/** Runs without their own `ToolPolicies` share these (breakers are per tool object). */
export const defaultToolPolicies = new ToolPolicies();

export function createToolPolicies(options?: ToolPoliciesOptions): ToolPolicies {
  return new ToolPolicies(options);
}

/** Throws on a policy that would disable a bound by mistake (a programmer error). */
export function checkPolicy(tool: string, policy: ToolPolicy | undefined): void {
  if (policy === undefined) return;
  const int = (value: number | undefined, min: number, max: number, what: string): void => {
    if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max)) {
      throw new TypeError(
        `tool ${tool}: ${what} must be an integer from ${min} to ${max}, got ${String(value)}`,
      );
    }
  };
  int(policy.retries, 0, 10, 'policy.retries');
  int(policy.concurrency, 1, 10_000, 'policy.concurrency');
  if (policy.breaker !== undefined && policy.breaker !== false) {
    int(policy.breaker.failures, 1, 1_000, 'policy.breaker.failures');
    int(policy.breaker.openMs, 1, 2_147_483_647, 'policy.breaker.openMs');
    if (policy.breaker.probe !== undefined && typeof policy.breaker.probe !== 'function')
      throw new TypeError(`tool ${tool}: policy.breaker.probe must be a function`);
  }
}
