import type { ModelRequest, ModelResult } from 'reins';
import { timerMs } from './http-post.js';

export interface CallBudget {
  /** Aborts with the run or when the budget runs out. */
  readonly signal: AbortSignal;
  readonly limitMs: number;
  /** Why the call stopped, if the run or the budget stopped it. */
  stopped(): ModelResult | undefined;
}

/**
 * One provider call's time: the adapter's own timeout, capped by the run's model timeout
 * (the timeout hierarchy), and the run's signal.
 */
export function callBudget(request: ModelRequest, ownTimeoutMs: number): CallBudget {
  const limitMs = timerMs(Math.min(ownTimeoutMs, request.timeoutMs ?? Number.POSITIVE_INFINITY));
  const timeout = AbortSignal.timeout(limitMs);
  return {
    signal: AbortSignal.any([request.signal, timeout]),
    limitMs,
    stopped: () =>
      request.signal.aborted
        ? { ok: false, error: { code: 'CANCELLED', message: 'the request was aborted' } }
        : timeout.aborted
          ? { ok: false, error: { code: 'TIMEOUT', message: `no complete answer within ${limitMs} ms` } }
          : undefined,
  };
}
