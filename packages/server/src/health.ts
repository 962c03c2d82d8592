import type { RunEvent } from 'reins';
import { isPause } from './run-feed.js';

export interface CheckResult {
  readonly status: 'up' | 'down' | 'disabled';
  readonly detail?: string;
  readonly latencyMs?: number;
  readonly [key: string]: unknown;
}

/**
 * A dependency check for `/health`: resolve with a result (or nothing, meaning up), or
 * reject (down). Each check runs under the health deadline, so a hung dependency reports
 * `down` instead of hanging the health endpoint.
 */
export type HealthCheck = () => Promise<CheckResult | void> | CheckResult | void;

export interface HealthReport {
  /**
   * `unavailable`: a required check is down (nothing can be served: `/health` answers 503);
   * `degraded`: another check is down (the server still serves, e.g. the quota fails open).
   */
  readonly status: 'ok' | 'degraded' | 'unavailable';
  readonly uptimeS: number;
  /** The checks that are down, required ones first (absent when none is). */
  readonly down?: readonly string[];
  readonly checks: Readonly<Record<string, CheckResult>>;
}

/**
 * Runs every check side by side, each under `deadlineMs`. One `down` makes the whole
 * `degraded`; one of `required` down makes it `unavailable`.
 */
export async function runHealthChecks(
  checks: ReadonlyMap<string, HealthCheck>,
  deadlineMs: number,
  uptimeS: number,
  required: ReadonlySet<string> = new Set(),
): Promise<HealthReport> {
  const results = await Promise.all(
    [...checks].map(async ([name, check]) => [name, await runCheck(check, deadlineMs)] as const),
  );
  const down = results.filter(([, r]) => r.status === 'down').map(([name]) => name);
  const critical = down.filter((name) => required.has(name));
  const status = critical.length > 0 ? 'unavailable' : down.length > 0 ? 'degraded' : 'ok';
  return {
    status,
    uptimeS,
    ...(down.length === 0 ? {} : { down: [...critical, ...down.filter((name) => !required.has(name))] }),
    checks: Object.fromEntries(results),
  };
}

async function runCheck(check: HealthCheck, deadlineMs: number): Promise<CheckResult> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 'down', detail: `no answer within ${deadlineMs} ms` }),
      deadlineMs,
    );
  });
  try {
    const result = await Promise.race([Promise.resolve().then(check), deadline]);
    const latencyMs = Math.round(performance.now() - started);
    return result === undefined ? { status: 'up', latencyMs } : { latencyMs, ...result };
  } catch (thrown) {
    return { status: 'down', detail: thrown instanceof Error ? thrown.message : String(thrown) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Model health from the runs themselves, so `/health` never spends a model call: a model is
 * `down` after `failuresToDown` consecutive failed calls (a run ending `MODEL_FAILED`), `up`
 * again after one answered call. A model never called yet is `up` with `detail: "not called yet"`.
 */
export class ModelHealth {
  readonly #models = new Map<string, { failures: number; lastOkAt?: number; lastError?: string }>();
  readonly #runModels = new Map<string, string>();

  constructor(
    modelNames: Iterable<string>,
    readonly failuresToDown = 3,
  ) {
    for (const name of modelNames) this.#models.set(name, { failures: 0 });
  }

  observe(event: RunEvent): void {
    if (event.type === 'start') this.#runModels.set(event.runId, event.model);
    else if (event.type === 'step' && event.phase === 'reason') {
      this.#models.set(event.model, { failures: 0, lastOkAt: event.at });
    } else if (event.type === 'error' && event.code === 'MODEL_FAILED') {
      const name = this.#runModels.get(event.runId) ?? 'unknown';
      const state = this.#models.get(name) ?? { failures: 0 };
      this.#models.set(name, { ...state, failures: state.failures + 1, lastError: event.message });
    } else if (event.type === 'done' && !isPause(event.status)) this.#runModels.delete(event.runId);
  }

  checks(): [string, HealthCheck][] {
    return [...this.#models.keys()].map((name) => [
      `model:${name}`,
      (): CheckResult => {
        const state = this.#models.get(name) ?? { failures: 0 };
        if (state.failures >= this.failuresToDown) {
          return {
            status: 'down',
            detail: state.lastError ?? 'failing',
            consecutiveFailures: state.failures,
          };
        }
        return state.lastOkAt === undefined && state.failures === 0
          ? { status: 'up', detail: 'not called yet' }
          : { status: 'up', consecutiveFailures: state.failures };
      },
    ]);
  }
}
