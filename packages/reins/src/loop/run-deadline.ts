import type { RunDeps } from '../util/deps.js';

/**
 * The run's wall-clock budget: fires `onExpire` once after `ms` of running time. Paused while
 * the run waits for its user (an approval), so waiting for a person spends none of it, and
 * held while a rebuilt run replays its history (the replay must reach the point where the run
 * was, before a limit may end it there).
 */
export class RunDeadline {
  #timer: unknown;
  #left: number;
  #since: number;
  #paused = false;
  #held = false;

  constructor(
    private readonly deps: RunDeps,
    ms: number,
    private readonly onExpire: () => void,
    held = false,
  ) {
    this.#left = ms;
    this.#since = deps.now();
    this.#held = held;
    if (!held) this.#timer = deps.setTimer(onExpire, ms);
  }

  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#stop();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#go();
  }

  /** The replay has caught up: the budget runs (unless the run is paused for its user). */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#go();
  }

  #stop(): void {
    if (this.#held) return; // not running: nothing to stop
    this.deps.clearTimer(this.#timer);
    this.#left -= this.deps.now() - this.#since;
  }

  #go(): void {
    if (this.#paused || this.#held) return;
    this.#since = this.deps.now();
    this.#timer = this.deps.setTimer(this.onExpire, Math.max(0, this.#left));
  }

  clear(): void {
    this.deps.clearTimer(this.#timer);
  }
}
