import type { RunEvent } from 'reins';
import { modelCallOf, type ModelCallEvent } from './model-call-event.js';
import { isPause } from './run-feed.js';

export interface CheckResult {
  readonly status: 'up' | 'down' | 'disabled';
  readonly detail?: string;
  readonly latencyMs?: number;
  /** How old the result is in `/health` (checks run in the background: see `HealthMonitor`). */
  readonly ageMs?: number;
  /** When the result was taken (ISO 8601). */
  readonly checkedAt?: string;
  readonly [key: string]: unknown;
}

/**
 * A dependency check for `/health`: resolve with a result (or nothing, meaning up), or
 * reject (down). Checks run in the background (`HealthMonitor`), each under the health
 * deadline and one call at a time, so a hung dependency reports `down` without `/health`
 * waiting for it.
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
    else if (modelCallOf(event) !== undefined) {
      const { model } = modelCallOf(event) as ModelCallEvent; // a reason step, or a planner's plan
      this.#models.set(model, { failures: 0, lastOkAt: event.at });
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
