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
 * breach (throw / reject) becomes failure data.
 */
export function callModel(model: Model, request: ModelRequest, slot: ModelCallSlot): Promise<ModelResult> {
  return new Promise<ModelResult>((resolve) => {
    slot.settle = resolve;
    try {
      const pending: unknown = model.call(request);
      // The contract says a promise; a plain result is accepted rather than failed.
      if (isThenable(pending))
        pending.then(resolve as (value: unknown) => void, (thrown: unknown) => resolve(breach(thrown)));
      else resolve(pending as ModelResult);
    } catch (thrown) {
      resolve(breach(thrown));
    }
  });
}

function breach(thrown: unknown): ModelResult {
  return {
    ok: false,
    error: { code: 'INTERNAL', message: `model adapter threw (contract breach): ${describeThrown(thrown)}` },
  };
}
