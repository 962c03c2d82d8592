/** Codes that cross a boundary (REST, agent tool observations, MCP, CLI). */
export type KitchenErrorCode =
  | 'INVALID_PARAMETER'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE';

export interface KitchenErrorBody {
  readonly error: { readonly code: KitchenErrorCode; readonly message: string; readonly field?: string };
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
