import type { Context } from 'hono';
import { ApiError } from './http-error.js';
import { checkBodyText } from './refuse-bad-text.js';

/** `POST /v1/runs/:id/approve`: which act, the hash of the exact input shown, and the answer. */
export interface ApprovalRequest {
  readonly actId: string;
  readonly inputHash: string;
  readonly approve: boolean;
}

/** Bodies over this are refused (413) while being read: the request is three short fields. */
export const MAX_APPROVAL_BODY_BYTES = 1_024;

const ACT_ID = /^[\w-]{1,128}$/;
const INPUT_HASH = /^[0-9a-f]{64}$/;

/**
 * Reads the body strictly: a JSON object with exactly `actId`, `inputHash` (the `approval`
 * event's SHA-256 hex) and `approve` (boolean); unknown fields are refused. Who approves is
 * never read from the body: it is the authenticated principal.
 */
export async function readApprovalRequest(c: Context): Promise<ApprovalRequest> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw invalid('the body must be JSON: {"actId": string, "inputHash": string, "approve": boolean}');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('the body must be a JSON object');
  }
  checkBodyText(body); // a control character in any field (or key): 400 naming it
  const { actId, inputHash, approve, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw invalid(`unknown field(s): ${extra.join(', ')}`);
  if (typeof actId !== 'string' || !ACT_ID.test(actId)) {
    throw invalid('actId: the act id of the approval event is required');
  }
  if (typeof inputHash !== 'string' || !INPUT_HASH.test(inputHash)) {
    throw invalid('inputHash: the inputHash of the approval event (64 hex characters) is required');
  }
  if (typeof approve !== 'boolean') throw invalid('approve: true or false is required');
  return { actId, inputHash, approve };
}

const invalid = (message: string): ApiError => new ApiError(400, 'INVALID_PARAMETER', message);
