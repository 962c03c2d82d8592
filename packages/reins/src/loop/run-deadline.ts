import type { RunDeps } from '../util/deps.js';

/**
 * The run's wall-clock budget: fires `onExpire` once after `ms` of running time. Paused while
 * the run waits for its user (an approval), so waiting for a person spends none of it.
 */
export class RunDeadline {
  #timer: unknown;
  #left: number;
  #since: number;
  #paused = false;

  constructor(
    private readonly deps: RunDeps,
    ms: number,
    private readonly onExpire: () => void,
  ) {
    this.#left = ms;
    this.#since = deps.now();
    this.#timer = deps.setTimer(onExpire, ms);
  }

  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.deps.clearTimer(this.#timer);
    this.#left -= this.deps.now() - this.#since;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#since = this.deps.now();
    this.#timer = this.deps.setTimer(this.onExpire, Math.max(0, this.#left));
  }

  clear(): void {
    this.deps.clearTimer(this.#timer);
  }
}
