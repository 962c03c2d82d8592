import type { RunEvent } from 'reins';

/** One side of a rollout, as `/metrics` compares them. */
export interface ArmStats {
  /** Runs that ended (a pause is not an end). */
  readonly runs: number;
  readonly successes: number;
  /** successes / runs (0 before any run ended). */
  readonly successRate: number;
  /** Model steps answered (a failed call counts). */
  readonly steps: number;
  /** Model steps per ended run. */
  readonly averageSteps: number;
  /** Mean duration of a model step (its `reason` event), ms. */
  readonly averageLatencyMs: number;
  /** Steps that failed (the call, its parse, or one of its tool calls) among the window's last steps. */
  readonly errorRate: number;
  /** Steps in the window now (at most the window's size). */
  readonly windowSteps: number;
}

/**
 * The running tally of one arm: totals, and a sliding window of the outcome of its last
 * `size` steps (1 = failed), which the switch-off compares between the arms.
 */
export class Arm {
  runs = 0;
  successes = 0;
  steps = 0;
  errors = 0;
  #latencyMs = 0;
  #timedSteps = 0;
  readonly #window: number[] = [];
  #windowErrors = 0;

  constructor(readonly size: number) {}

  /** Counts one event of a run this arm answered. */
  see(event: RunEvent): void {
    if (event.type === 'done') {
      if (event.status === 'awaiting_approval' || event.status === 'awaiting_input') return;
      this.runs++;
      if (event.status === 'success') this.successes++;
    } else if (event.type === 'error' && event.code === 'MODEL_FAILED') {
      this.#step(true); // the call itself failed
    } else if (event.type === 'step' && event.phase === 'reason') {
      this.#latencyMs += event.durationMs;
      this.#timedSteps++;
      this.#step(!event.parse.ok);
    } else if (event.type === 'step' && event.phase === 'observe' && event.observation.status !== 'ok') {
      this.#failLast();
    }
  }

  get windowRate(): number {
    return this.#window.length === 0 ? 0 : this.#windowErrors / this.#window.length;
  }

  get windowSteps(): number {
    return this.#window.length;
  }

  stats(): ArmStats {
    return {
      runs: this.runs,
      successes: this.successes,
      successRate: this.runs === 0 ? 0 : this.successes / this.runs,
      steps: this.steps,
      averageSteps: this.runs === 0 ? 0 : this.steps / this.runs,
      averageLatencyMs: this.#timedSteps === 0 ? 0 : this.#latencyMs / this.#timedSteps,
      errorRate: this.windowRate,
      windowSteps: this.#window.length,
    };
  }

  #step(failed: boolean): void {
    this.steps++;
    if (failed) this.errors++;
    this.#window.push(failed ? 1 : 0);
    if (failed) this.#windowErrors++;
    if (this.#window.length > this.size) this.#windowErrors -= this.#window.shift() ?? 0;
  }

  /** A tool call of the last step failed: that step failed (once, however many calls failed). */
  #failLast(): void {
    const last = this.#window.length - 1;
    if (last < 0) return;
    // Totals count each failed tool observation, as the rollout always has (errors per step).
    this.errors++;
    if (this.#window[last] === 1) return;
    this.#window[last] = 1;
    this.#windowErrors++;
  }
}
