import type { ChatMessage, ModelRequest, ToolSpec } from '../model.js';
import { CallbackList } from '../util/callback-list.js';
import { INTERNAL, withOwnSignal } from '../util/own-lazy-signal.js';

/** The part of `AbortSignal` the runtime itself uses; an `AbortSignal` satisfies it. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A run's abort state. Its own listeners are kept in a `CallbackList`, and the real
 * `AbortController` is made only when something reads `signal` (a model adapter passing it
 * to fetch): on Node 20 creating one costs ~2 µs and a listener on it ~5 µs, more than a
 * whole zero-latency model step.
 */
export class RunAbort implements AbortLike {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  readonly #listeners = new CallbackList();

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
    this.#listeners.drain();
  }

  /** Like `AbortSignal`: each listener is called once, on abort; none after. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.remove(listener);
  }
}

/** Where a step request's text deltas go (the loop). */
export interface DeltaSink {
  modelDelta(step: number, text: string): void;
}

/**
 * One model step's request. `signal` is an own enumerable property — so a wrapper that
 * spreads the request keeps it — computed only when read, so a model that never looks does
 * not make the run's `AbortController` (`withOwnSignal`: the constructor returns a proxy).
 */
export class StepRequest implements ModelRequest {
  readonly [INTERNAL]: RunAbort;
  readonly #sink: DeltaSink;

  constructor(
    readonly messages: readonly ChatMessage[],
    readonly tools: readonly ToolSpec[],
    readonly step: number,
    readonly finalStep: boolean,
    readonly timeoutMs: number,
    readonly runId: string,
    abort: RunAbort,
    sink: DeltaSink,
  ) {
    this[INTERNAL] = abort;
    this.#sink = sink;
    return withOwnSignal(this);
  }

  get signal(): AbortSignal {
    return this[INTERNAL].signal;
  }

  /** Own and bound (not a prototype method), so a wrapper that spreads the request keeps it. */
  readonly onDelta = (text: string): void => this.#sink.modelDelta(this.step, text);
}
