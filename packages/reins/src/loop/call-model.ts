import { describeThrown } from '../errors.js';
import type { Model, ModelRequest, ModelResult } from '../model.js';
import { isThenable } from '../util/is-thenable.js';

/**
 * Starts a model call: its pending result (the adapter's own promise, not wrapped: the loop
 * awaits it directly and ends the run itself on abort, see `ReactLoop`), or its outcome when
 * the adapter answered synchronously or threw. A contract breach (throw) becomes failure data.
 */
export function startModelCall(model: Model, request: ModelRequest): ModelResult | PromiseLike<unknown> {
  try {
    const pending: unknown = model.call(request);
    // The contract says a promise; a plain result is accepted rather than failed.
    return isThenable(pending) ? pending : (pending as ModelResult);
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
