import type { ChatMessage, ModelRequest, ToolSpec } from '../model.js';
import { CallbackList } from '../util/callback-list.js';

/** The part of `AbortSignal` the runtime itself uses; an `AbortSignal` satisfies it. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A run's abort state. A real `AbortController` is made only when something asks for
 * `signal` (a model adapter passing it to fetch): creating one costs more than a whole
 * zero-latency model step on Node 20, and in-process runs often never need it.
 */
export class RunAbort implements AbortLike {
  #aborted = false;
  #reason: unknown;
  readonly #listeners = new CallbackList();
  #controller: AbortController | undefined;

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

/** One model step's request; its `signal` is the run's, made on first read. */
export class StepRequest implements ModelRequest {
  constructor(
    readonly messages: readonly ChatMessage[],
    readonly tools: readonly ToolSpec[],
    readonly step: number,
    readonly finalStep: boolean,
    private readonly abort: RunAbort,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}
