import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DependencyUnavailableError, ErrorCode } from 'reins';

/** Codes that cross the HTTP boundary: the core's error codes plus the server's own. */
export type ApiErrorCode =
  | ErrorCode
  | 'UNAUTHENTICATED'
  | 'QUOTA_EXCEEDED'
  | 'TOO_MANY_RUNS'
  | 'PAYLOAD_TOO_LARGE'
  | 'NOT_IMPLEMENTED'
  | 'CONFLICT'
  | 'MISDIRECTED_REQUEST'
  | 'CROSS_ORIGIN'
  | 'UNSUPPORTED_MEDIA_TYPE';

export interface ApiErrorBody {
  readonly error: {
    readonly code: ApiErrorCode;
    readonly message: string;
    /** What the client can use to correct the request (e.g. `agents` for an unknown agent). */
    readonly [detail: string]: unknown;
  };
}

/**
 * A failure a handler reports to the client: an HTTP status, a code and a message, sent as
 * `{error: {code, message}}`. Thrown inside handlers and turned into a response by the app's
 * error handler; anything else thrown is a bug and becomes a 500 `INTERNAL` (message hidden).
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ApiErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extra fields of the error body (`code` and `message` are the class's own). */
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function errorBody(
  code: ApiErrorCode,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
): ApiErrorBody {
  return { error: { ...details, code, message } };
}

export function sendError(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(errorBody(error.code, error.message, error.details), error.status);
}

export const notFound = (what = 'run'): ApiError => new ApiError(404, 'NOT_FOUND', `no such ${what}`);

/** An agent name the server does not have: 404 naming the ones it has (also in `error.agents`). */
export const unknownAgent = (name: string, agents: Iterable<string>): ApiError => {
  const names = [...agents];
  return new ApiError(
    404,
    'NOT_FOUND',
    `no such agent ${JSON.stringify(name.slice(0, 100))}; agents: ${names.join(', ')}`,
    {},
    { agents: names },
  );
};

/** A dependency (the run store's database, …) cannot answer now: 503 with its `Retry-After`. */
export const unavailable = (thrown: DependencyUnavailableError): ApiError =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', thrown.message, { 'Retry-After': String(thrown.retryAfterS) });
