import { DelegateBackoff, handleWhenResult, retry } from 'cockatiel';
import type { ErrorCode, Model, ModelRequest, ModelResult } from 'reins';
import { DeltasOnce, withTryDeltas } from './deltas-once.js';

export interface RetryOptions {
  /** Retries after the first try (default 2). */
  readonly maxRetries?: number;
  /** First backoff (default 250 ms); doubles each retry, with full jitter, up to `maxDelayMs`. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Codes worth another try (default: rate limits, 5xx and broken connections). */
  readonly retryOn?: readonly ErrorCode[];
  /** Injectable for tests. */
  readonly random?: () => number;
}

const DEFAULT_RETRY_ON: readonly ErrorCode[] = ['RATE_LIMITED', 'SERVICE_UNAVAILABLE'];

/**
 * Retries a model's failed calls with exponential backoff and jitter (cockatiel), honouring a
 * provider's `Retry-After`, and never after the run's signal aborted. Still a `Model`: it
 * never throws, and the last failure is returned as data. It gives up at once, returning that
 * failure (so a fallback can answer), when the wait would not fit in what is left of the step's
 * model timeout, and when the provider asks for a longer wait than `maxDelayMs`. Streamed text
 * (`onDelta`) reaches the caller once over every try (`DeltasOnce`).
 */
export function withRetries(model: Model, options: RetryOptions = {}): Model {
  const retryOn = new Set(options.retryOn ?? DEFAULT_RETRY_ON);
  const base = options.baseDelayMs ?? 250;
  const max = options.maxDelayMs ?? 8_000;
  const maxAttempts = options.maxRetries ?? 2;
  const random = options.random ?? Math.random;
  return {
    name: model.name,
    ...(model.demo === undefined ? {} : { demo: model.demo }),
    call(request: ModelRequest): Promise<ModelResult> {
      const { signal } = request;
      if (signal.aborted) return Promise.resolve(CANCELLED);
      const until = request.timeoutMs === undefined ? undefined : Date.now() + request.timeoutMs;
      // Each character of streamed text reaches the caller once, over every try (DeltasOnce).
      const listener = request.onDelta;
      const deltas = listener === undefined ? undefined : new DeltasOnce(listener);
      const tryRequest = (timeoutMs: number | undefined): ModelRequest =>
        withTryDeltas(timeoutMs === undefined ? request : { ...request, timeoutMs }, deltas);
      // The wait before the next try, decided with the failure (one policy per call, so
      // concurrent calls do not share it); undefined: no retry.
      let failures = 0;
      let wait = 0;
      const retryAfter = (result: ModelResult): number | undefined => {
        if (result.ok || !retryOn.has(result.error.code)) return undefined;
        failures++;
        const asked = (result.error as { retryAfterMs?: number }).retryAfterMs;
        if (asked !== undefined && asked > max) return undefined; // longer than we wait: give up now
        const ms = asked ?? Math.round(random() * Math.min(max, base * 2 ** (failures - 1)));
        return until !== undefined && Date.now() + ms >= until ? undefined : ms;
      };
      const policy = retry(
        handleWhenResult((result) => {
          const next = retryAfter(result as ModelResult);
          if (next === undefined) return false;
          wait = next;
          return true;
        }),
        { maxAttempts, backoff: new DelegateBackoff(() => wait) },
      ).dangerouslyUnref(); // a backoff left behind by an aborted call must not keep the process alive
      // cockatiel does not cut a backoff short on abort: settle at once ourselves, and make any
      // later attempt a no-op, so no call starts after the abort.
      // Each try gets what is left of the step's model timeout; none starts when nothing is.
      const attempt = (): ModelResult | Promise<ModelResult> => {
        if (signal.aborted) return CANCELLED;
        if (until === undefined) return model.call(tryRequest(undefined));
        const left = until - Date.now();
        return left <= 0 ? OUT_OF_TIME : model.call(tryRequest(left));
      };
      return new Promise<ModelResult>((resolve) => {
        // The policy's backoff timer is unref'd (one left behind by an aborted call must not
        // hold the process); while the call is live this one holds it, or a plain `node`
        // process (the CLI) waiting out a backoff would find nothing to wait for and exit.
        const hold = setInterval(() => undefined, 2 ** 30);
        const onAbort = (): void => {
          clearInterval(hold);
          resolve(CANCELLED);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = (result: ModelResult): void => {
          clearInterval(hold);
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        };
        policy.execute(attempt).then(settle, (thrown: unknown) =>
          settle({
            ok: false,
            error: { code: 'INTERNAL', message: `retry policy failed: ${String(thrown)}` },
          }),
        );
      });
    },
  };
}

const CANCELLED: ModelResult = {
  ok: false,
  error: { code: 'CANCELLED', message: 'aborted between retries' },
};
const OUT_OF_TIME: ModelResult = {
  ok: false,
  error: { code: 'TIMEOUT', message: "the step's model timeout ran out between retries" },
};
