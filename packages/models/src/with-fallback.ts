import type { ErrorCode, Model, ModelRequest, ModelResult } from 'reins';
import { DeltasOnce, withTryDeltas } from './deltas-once.js';

export interface FallbackOptions {
  /** Primary failures that hand the step to the fallback (default: timeouts and 5xx/unreachable). */
  readonly on?: readonly ErrorCode[];
}

/**
 * A primary model with a fallback: when the primary fails with one of `on`, the fallback
 * answers the same request, and the result names the model that answered (the run's event
 * log records it per step). Never after the run's signal aborted.
 */
export function withFallback(primary: Model, fallback: Model, options: FallbackOptions = {}): Model {
  const on = new Set<ErrorCode>(options.on ?? ['TIMEOUT', 'SERVICE_UNAVAILABLE']);
  return {
    name: `${primary.name}|${fallback.name}`,
    ...(primary.demo === true && fallback.demo === true ? { demo: true } : {}),
    async call(request: ModelRequest): Promise<ModelResult> {
      const started = Date.now();
      // Streamed text reaches the caller once: the fallback's only past what the primary sent.
      const listener = request.onDelta;
      const deltas = listener === undefined ? undefined : new DeltasOnce(listener);
      const first = await primary.call(withTryDeltas(request, deltas));
      if (first.ok) return { ...first, model: first.model ?? primary.name, route: first.route ?? 'primary' };
      if (!on.has(first.error.code) || request.signal.aborted) return first;
      // The fallback gets what is left of the step's model timeout, not a fresh one.
      const left = request.timeoutMs === undefined ? undefined : request.timeoutMs - (Date.now() - started);
      if (left !== undefined && left <= 0) return first;
      const second = await fallback.call(
        withTryDeltas(left === undefined ? request : { ...request, timeoutMs: left }, deltas),
      );
      if (second.ok) {
        // A nested chain's own "primary" is this chain's fallback: said once, not twice.
        const why = `fallback after ${first.error.code} from ${primary.name}`;
        const inner = second.route === undefined || second.route === 'primary' ? '' : `; ${second.route}`;
        return { ...second, model: second.model ?? fallback.name, route: why + inner };
      }
      const message = `${primary.name}: ${first.error.message}; fallback ${fallback.name}: ${second.error.message}`;
      // The fallback's wait, if it asked for one, goes up with its code (an outer withRetries honours it).
      const wait = (second.error as { retryAfterMs?: number }).retryAfterMs;
      return {
        ok: false,
        error: { code: second.error.code, message, ...(wait === undefined ? {} : { retryAfterMs: wait }) },
      };
    },
  };
}
