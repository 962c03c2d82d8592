import type { ErrorCode } from '../errors.js';

/** Codes that say the tool (or what is behind it) is failing: they count toward its breaker. */
export const BREAKER_FAILURES: ReadonlySet<ErrorCode> = new Set([
  'SERVICE_UNAVAILABLE',
  'RATE_LIMITED',
  'TIMEOUT',
  'INTERNAL',
]);

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface ResolvedBreaker {
  readonly failures: number;
  readonly openMs: number;
  readonly probe?: () => boolean | Promise<boolean>;
}

/** What the guard needs to know of an attempt's outcome. */
export interface AttemptResult {
  readonly ok: boolean;
  readonly code?: ErrorCode;
  /** The run stopped the call: no verdict on the tool. */
  readonly byRun?: boolean;
  /** A half-open probe the run cut short: counted as a failure (the breaker stays open). */
  readonly probeCut?: boolean;
}

export function isBreakerFailure(result: unknown): boolean {
  const attempt = result as AttemptResult | undefined;
  if (attempt?.probeCut === true) return true;
  return attempt?.ok === false && attempt.code !== undefined && BREAKER_FAILURES.has(attempt.code);
}
