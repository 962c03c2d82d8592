import type { ChatMessage, ModelRequest, ToolSpec } from '../model.js';
import { CallbackList } from '../util/callback-list.js';
import { INTERNAL, withOwnSignalAndDelta } from '../util/own-lazy-signal.js';
import { RUN_CANCELLED, RUN_DEADLINE } from './abort-reasons.js';
import { QueuedDeadline } from './deadline-queue.js';

/** The part of `AbortSignal` the runtime itself uses; an `AbortSignal` satisfies it. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Told first when a run aborts: its loop (one object per run, not a listener closure). */
export interface AbortWatcher {
  runAborted(): void;
}

/**
 * A run's abort state. Its own listeners are kept in a `CallbackList`, and the real
 * `AbortController` is made only when something reads `signal` (a model adapter passing it
 * to fetch): on Node 20 creating one costs ~2 µs and a listener on it ~5 µs, more than a
 * whole zero-latency model step. It also holds what aborts the run from outside — its
 * deadline (a `QueuedDeadline`, or a pausable `RunDeadline`) and the caller's signal — and
 * releases them when the run ends.
 */
export class RunAbort extends QueuedDeadline implements AbortLike {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  /** Made when the first listener comes (a run's loop is its `#watcher`, not a listener). */
  #listeners: CallbackList | undefined;
  #watcher: AbortWatcher | undefined;
  /** A deadline that can pause (approvals, questions) or is held during a replay, instead of the queued one. */
  #pausable: { clear(): void } | undefined;
  /** Stops following the caller's signal (see `follow`). */
  #unfollow: (() => void) | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const watcher = this.#watcher;
    this.#watcher = undefined;
    watcher?.runAborted();
    this.#listeners?.drain();
  }

  /** The run is cancelled (status `cancelled`). */
  cancel(): void {
    this.abort(RUN_CANCELLED);
  }

  deadlinePassed(): void {
    this.abort(RUN_DEADLINE);
  }

  /** Like `AbortSignal`: each listener is called once, on abort; none after. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) (this.#listeners ??= new CallbackList()).add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners?.remove(listener);
  }

  /** `watcher.runAborted()` runs first when the run aborts (once; none after `unwatch`). */
  watch(watcher: AbortWatcher): void {
    if (!this.#aborted) this.#watcher = watcher;
  }

  unwatch(): void {
    this.#watcher = undefined;
  }

  /** Cancels the run when `external` aborts (at once if it has), until `release`. */
  follow(external: AbortSignal | undefined): void {
    if (external === undefined) return;
    if (external.aborted) return this.cancel();
    const cancel = (): void => this.cancel();
    external.addEventListener('abort', cancel, { once: true });
    this.#unfollow = () => external.removeEventListener('abort', cancel);
  }

  /** Uses `deadline` (which ends the run through `deadlinePassed`) instead of a queued one. */
  holdDeadline(deadline: { clear(): void }): void {
    this.#pausable = deadline;
  }

  /** The run has ended: its deadline and the caller's signal no longer concern it. */
  release(): void {
    this.clearDeadline();
    this.#pausable?.clear();
    this.#unfollow?.();
    this.#unfollow = undefined;
  }
}

/** Where a step request's signal and text deltas come from (the loop). */
export interface StepSource {
  readonly abort: RunAbort;
  modelDelta(step: number, text: string): void;
}

/**
 * One model step's request. `signal` and `onDelta` are own enumerable properties — so a
 * wrapper that spreads the request keeps them — computed only when read, so a model that
 * never looks does not make the run's `AbortController`, nor a callback per step
 * (`withOwnSignalAndDelta`: the constructor returns a proxy).
 */
export class StepRequest implements ModelRequest {
  readonly [INTERNAL]: StepSource;

  constructor(
    readonly messages: readonly ChatMessage[],
    readonly tools: readonly ToolSpec[],
    readonly step: number,
    readonly finalStep: boolean,
    readonly timeoutMs: number,
    readonly runId: string,
    readonly userKey: string | undefined,
    source: StepSource,
  ) {
    this[INTERNAL] = source;
    return withOwnSignalAndDelta(this);
  }

  get signal(): AbortSignal {
    return this[INTERNAL].abort.signal;
  }

  /** Bound to this step: a wrapper that spreads the request keeps a working callback. */
  get onDelta(): (text: string) => void {
    const source = this[INTERNAL];
    const step = this.step;
    return (text: string): void => source.modelDelta(step, text);
  }
}
