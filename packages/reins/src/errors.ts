/**
 * Error codes that cross a boundary (tool → loop → model, loop → client). They are data:
 * the loop reacts to the code, never to the message text.
 */
export const ERROR_CODES = [
  'INVALID_PARAMETER', // the model can correct itself (wrong or extra input keys)
  'UNKNOWN_TOOL', // the model named a tool that is not offered
  'REPEATED_ACTION', // same tool + canonically equal input as an earlier step
  'LIMIT_EXCEEDED', // a bound of the run refused the call (e.g. too many calls in one step)
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
  'RATE_LIMITED',
  'CANCELLED',
  'INVALID_OUTPUT', // the tool's result failed its output schema
  'CHECK_FAILED', // the tool's result failed its business rule
  'MODEL_FAILED', // the model call returned an error
  'INTERNAL', // a bug: a tool or model broke its contract
  'OUTCOME_UNKNOWN', // a call that may change something was cut off by a crash: not repeated, a person checks
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorData {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: unknown;
}

/**
 * What a tool throws to report a typed failure. Anything else a tool throws is reported as
 * `INTERNAL` (with the message kept), because an untyped throw is a bug in the tool.
 */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.details = details;
  }
}

/**
 * A dependency the caller cannot do without (a database, a queue) did not answer: refused,
 * timed out, or shutting down. Not a bug, and not the caller's fault: retry after `retryAfterS`.
 * Servers answer it with 503 `SERVICE_UNAVAILABLE` and `Retry-After`; thrown inside a tool it is
 * a `SERVICE_UNAVAILABLE` observation like any other (it is a `ToolError`).
 */
export class DependencyUnavailableError extends ToolError {
  /** Which dependency, for `/health` and logs: `database`, `redis`, … */
  readonly dependency: string;
  readonly retryAfterS: number;

  constructor(dependency: string, message: string, options: { retryAfterS?: number; cause?: unknown } = {}) {
    super('SERVICE_UNAVAILABLE', message, { dependency });
    this.name = 'DependencyUnavailableError';
    this.dependency = dependency;
    this.retryAfterS = options.retryAfterS ?? 2;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  return typeof thrown === 'string' ? thrown : (JSON.stringify(thrown) ?? String(thrown));
}
