import { describeThrown } from '../errors.js';
import type { Model, ModelRequest, ModelResult } from '../model.js';

/**
 * Calls the model and settles as soon as the run's signal aborts, even if the adapter
 * ignores it. A contract breach (throw / reject) becomes failure data.
 */
export function callModel(model: Model, request: ModelRequest): Promise<ModelResult> {
  const { signal } = request;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise<ModelResult>((resolve) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = (result: ModelResult): void => {
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    try {
      model.call(request).then(settle, (thrown: unknown) => settle(breach(thrown)));
    } catch (thrown) {
      settle(breach(thrown));
    }
  });
}

const ABORTED: ModelResult = {
  ok: false,
  error: { code: 'CANCELLED', message: 'the run stopped during the model call' },
};

function breach(thrown: unknown): ModelResult {
  return {
    ok: false,
    error: { code: 'INTERNAL', message: `model adapter threw (contract breach): ${describeThrown(thrown)}` },
  };
}
