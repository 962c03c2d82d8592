import { ToolError, type ErrorCode } from 'reins';
import { KitchenError, type KitchenErrorCode } from '../domain/errors.js';

const CODES: Readonly<Record<KitchenErrorCode, ErrorCode>> = {
  INVALID_PARAMETER: 'INVALID_PARAMETER',
  UNAUTHENTICATED: 'PERMISSION_DENIED',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'INVALID_PARAMETER',
  PRECONDITION_FAILED: 'INVALID_PARAMETER',
  EXPIRED: 'NOT_FOUND', // no tool answers invitations; an expired thing is gone to a model
  PAYLOAD_TOO_LARGE: 'INVALID_PARAMETER',
  IDEMPOTENCY_KEY_REUSED: 'INVALID_PARAMETER',
  RATE_LIMITED: 'RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

/**
 * Runs a service call for a tool: a `KitchenError` (an expected failure, safe to show)
 * becomes a typed `ToolError` with the field at fault; anything else stays a bug (`INTERNAL`).
 */
export async function viaService<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    if (thrown instanceof KitchenError) {
      throw new ToolError(
        CODES[thrown.code],
        thrown.message,
        thrown.field === undefined ? undefined : { field: thrown.field },
      );
    }
    throw thrown;
  }
}
