import type { ErrorCode, ModelFailure } from 'reins';
import type { HttpResponse } from './http-post.js';
import { ReplyTooLarge } from './reply-cap.js';

/** What a provider's HTTP status means to the loop. */
export function codeForStatus(status: number): ErrorCode {
  if (status === 400 || status === 413 || status === 422) return 'INVALID_PARAMETER';
  if (status === 401 || status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 408) return 'TIMEOUT';
  if (status === 429) return 'RATE_LIMITED';
  return 'SERVICE_UNAVAILABLE'; // 5xx, 529 overloaded, anything unexpected
}

/** Seconds or an HTTP date, as milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  // delay-seconds is digits only (RFC 9110 §10.2.3): not hex, an exponent or a sign.
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (/^[+-]?(\d|\.\d|0[xob])/i.test(text)) return undefined; // a number, but not delay-seconds
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A failure from an error response, with the provider's own message when it sent one. */
export async function failureFromResponse(
  response: HttpResponse,
): Promise<ModelFailure & { retryAfterMs?: number }> {
  const text = await response.text(64 * 1024).catch(() => '');
  let message = text.slice(0, 500);
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const inner = typeof body.error === 'object' ? body.error?.message : (body.error ?? body.message);
    if (typeof inner === 'string') message = inner;
  } catch {
    // not JSON: keep the text
  }
  const wait = retryAfterMs(response.header('retry-after'));
  return {
    code: codeForStatus(response.status),
    message: `HTTP ${response.status}: ${message || 'no details'}`,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
}

/**
 * A thrown fetch/stream error as failure data: aborts, timeouts, connection errors and a
 * reply past its cap (`LIMIT_EXCEEDED`: a bound refused it; not worth a retry).
 */
export function failureFromThrown(thrown: unknown, signal: AbortSignal): ModelFailure {
  if (signal.aborted) return { code: 'CANCELLED', message: 'the request was aborted' };
  if (thrown instanceof ReplyTooLarge) return thrown.failure;
  const name = thrown instanceof Error ? thrown.name : '';
  if (name === 'TimeoutError') return { code: 'TIMEOUT', message: 'the request timed out' };
  const cause = thrown instanceof Error && thrown.cause instanceof Error ? `: ${thrown.cause.message}` : '';
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return { code: 'SERVICE_UNAVAILABLE', message: `connection failed: ${message}${cause}` };
}
