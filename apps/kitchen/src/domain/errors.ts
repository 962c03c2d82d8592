/** Codes that cross a boundary (REST, agent tool observations, MCP, CLI). */
export type KitchenErrorCode =
  | 'INVALID_PARAMETER'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'EXPIRED'
  | 'PAYLOAD_TOO_LARGE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE';

export interface KitchenErrorBody {
  readonly error: {
    readonly code: KitchenErrorCode;
    readonly message: string;
    readonly field?: string;
    /** With `PRECONDITION_FAILED`: the version the row is at now. */
    readonly currentVersion?: number;
  };
}

/** The row as it is now, carried by a `PRECONDITION_FAILED` (its version, and its ETag for the header). */
export interface CurrentVersion {
  readonly version: number;
  readonly etag: string;
}

/**
 * An expected failure, reported as data: a code, a message safe to show, and for validation
 * errors the field at fault. Anything else thrown by the service layer is a bug.
 */
export class KitchenError extends Error {
  constructor(
    readonly code: KitchenErrorCode,
    message: string,
    readonly field?: string,
    readonly current?: CurrentVersion,
    /** With `RATE_LIMITED` and `SERVICE_UNAVAILABLE`: seconds until a retry can succeed (`Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'KitchenError';
  }

  toJSON(): KitchenErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.field === undefined ? {} : { field: this.field }),
        ...(this.current === undefined ? {} : { currentVersion: this.current.version }),
      },
    };
  }
}

export const invalid = (field: string, message: string): KitchenError =>
  new KitchenError('INVALID_PARAMETER', message, field);

/** The one answer for "missing" and "belongs to another household": they must look the same. */
export const notFound = (what: string, field?: string): KitchenError =>
  new KitchenError('NOT_FOUND', `no such ${what}`, field);

export const denied = (message: string): KitchenError => new KitchenError('PERMISSION_DENIED', message);

export const conflict = (message: string, field?: string): KitchenError =>
  new KitchenError('CONFLICT', message, field);

/** Something that was valid until a moment now past, e.g. an invitation (HTTP 410). */
export const expired = (message: string): KitchenError => new KitchenError('EXPIRED', message);

/** An `If-Match` that names another version than the row's current one (HTTP 412). */
export const preconditionFailed = (what: string, current: CurrentVersion): KitchenError =>
  new KitchenError(
    'PRECONDITION_FAILED',
    `the ${what} was changed meanwhile: it is at version ${current.version} now (ETag ${current.etag}); reload it and try again`,
    undefined,
    current,
  );

/** Too many tries: refused without doing the work; `retryAfterSeconds` says when to come back. */
export const rateLimited = (message: string, retryAfterSeconds: number): KitchenError =>
  new KitchenError('RATE_LIMITED', message, undefined, undefined, retryAfterSeconds);

/** The server cannot take this now (a bounded resource is full); a retry soon can succeed. */
export const unavailable = (message: string, retryAfterSeconds: number): KitchenError =>
  new KitchenError('SERVICE_UNAVAILABLE', message, undefined, undefined, retryAfterSeconds);
