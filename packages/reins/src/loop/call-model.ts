import { describeThrown } from '../errors.js';
import type { Model, ModelRequest, ModelResult } from '../model.js';
import { isThenable } from '../util/is-thenable.js';

/** Where a run keeps the settle function of its model call in flight, for its one abort listener. */
export interface ModelCallSlot {
  settle?: ((result: ModelResult) => void) | undefined;
}

export const ABORTED: ModelResult = {
  ok: false,
  error: { code: 'CANCELLED', message: 'the run stopped during the model call' },
};

/**
 * Calls the model; the run settles the call through `slot` when its signal aborts, even if
 * the adapter ignores the signal (one listener per run, not one per call). A contract
 * breach (throw / reject) becomes failure data. (The plan executor's way; the ReAct loop
 * awaits `startModelCall` directly, without this promise per step.)
 */
export function callModel(model: Model, request: ModelRequest, slot: ModelCallSlot): Promise<ModelResult> {
  return new Promise<ModelResult>((resolve) => {
    slot.settle = resolve;
    const started = startModelCall(model, request);
    if (isThenable(started))
      started.then(resolve as (value: unknown) => void, (thrown: unknown) => resolve(modelBreach(thrown)));
    else resolve(started);
  });
}

/**
 * Starts a model call: its pending result (the adapter's own promise, not wrapped: the loop
 * awaits it directly and ends the run itself on abort, see `ReactLoop`), or its outcome when
 * the adapter answered synchronously or threw. A contract breach (throw) becomes failure data.
 */
export function startModelCall(model: Model, request: ModelRequest): ModelResult | PromiseLike<unknown> {
  try {
    const pending: unknown = model.call(request);
    if (isThenable(pending)) return pending;
    // The contract says a promise; a plain result is accepted rather than failed. Anything
    // that is not even an object (a call that returned nothing) is a breach: the loop takes
    // no result for the end of the run.
    if (typeof pending !== 'object' || pending === null) {
      const got = pending === null ? 'null' : typeof pending;
      return modelBreach(new TypeError(`call() returned ${got}, not a promise of a result`));
    }
    return pending as ModelResult;
  } catch (thrown) {
    return modelBreach(thrown);
  }
}

/** A model call that threw or rejected (the adapter broke its contract), as failure data. */
export function modelBreach(thrown: unknown): ModelResult {
  return {
    ok: false,
    error: { code: 'INTERNAL', message: `model adapter threw (contract breach): ${describeThrown(thrown)}` },
  };
}
