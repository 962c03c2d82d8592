import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DependencyUnavailableError } from 'reins';
import { KitchenError, type KitchenErrorCode } from '../domain/errors.js';

const STATUS: Record<KitchenErrorCode, ContentfulStatusCode> = {
  INVALID_PARAMETER: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};

export function errorResponse(c: Context, error: KitchenError): Response {
  if (error.current !== undefined) c.header('ETag', error.current.etag); // a 412 names the version now
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  return c.json(error.toJSON(), STATUS[error.code]);
}

/** The database (or another dependency) cannot answer now: 503 with `Retry-After`, no detail of where. */
export function unavailableResponse(c: Context, error: DependencyUnavailableError): Response {
  c.header('Retry-After', String(error.retryAfterS));
  return c.json({ error: { code: 'SERVICE_UNAVAILABLE', message: error.message } }, 503);
}

/**
 * The app's error handler: expected failures as `{error}`, an unavailable dependency as a 503
 * (an outage, not a bug: `/health` names it), anything else a 500 with no detail.
 */
export function onError(report: (error: unknown) => void) {
  return (error: unknown, c: Context): Response => {
    if (error instanceof KitchenError) return errorResponse(c, error);
    if (error instanceof DependencyUnavailableError) return unavailableResponse(c, error);
    report(error);
    return c.json({ error: { code: 'INTERNAL', message: 'internal error' } }, 500);
  };
}
