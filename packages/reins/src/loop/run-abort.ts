import type { ChatMessage, ModelRequest, ToolSpec } from '../model.js';
import { CallbackList } from '../util/callback-list.js';
import { ownLazySignal } from '../util/own-lazy-signal.js';

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

  /** True once a real signal exists (someone asked for it). */
  get hasSignal(): boolean {
    return this.#controller !== undefined;
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

/**
 * One model step's request. `signal` is an own enumerable property — so a wrapper that
 * spreads the request keeps it — but an accessor while the run has no real signal yet, so
 * a model that never looks does not make one.
 */
/** Where a step request's text deltas go (the loop). */
export interface DeltaSink {
  modelDelta(step: number, text: string): void;
}

export class StepRequest implements ModelRequest {
  declare readonly signal: AbortSignal;
  readonly #abort: RunAbort;
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
    this.#abort = abort;
    this.#sink = sink;
    if (abort.hasSignal) Object.defineProperty(this, 'signal', { value: abort.signal, enumerable: true });
    else Object.defineProperty(this, 'signal', LAZY_SIGNAL);
  }

  /** Own and bound (not a prototype method), so a wrapper that spreads the request keeps it. */
  readonly onDelta = (text: string): void => this.#sink.modelDelta(this.step, text);

  static signalOf(request: StepRequest): AbortSignal {
    return request.#abort.signal;
  }
}

const LAZY_SIGNAL = ownLazySignal<StepRequest>((request) => StepRequest.signalOf(request));
