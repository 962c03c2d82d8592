import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { ToolError, isErrorCode, type ErrorCode } from 'reins';
import { untrustedText } from './untrusted-text.js';

/** Why this side stopped waiting for a call (the abort reason we set ourselves). */
export type StopCause = 'cancelled' | 'timeout';

export interface CallSite {
  readonly server: string;
  readonly tool: string;
}

const MAX_MESSAGE = 500;

/** Codes a server may name for itself in an `isError` result; loop-level codes are ours. */
const SERVER_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_PARAMETER',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
  'RATE_LIMITED',
]);

/** Is this failure the connection's fault (worth one retry of a read-only call after reconnecting)? */
export function isTransportFailure(thrown: unknown): boolean {
  if (thrown instanceof ToolError) return thrown.code === 'SERVICE_UNAVAILABLE' && isTransportDetail(thrown);
  if (SdkError.isInstance(thrown)) {
    const code = (thrown as SdkError).code;
    return (
      code === SdkErrorCode.ConnectionClosed ||
      code === SdkErrorCode.NotConnected ||
      code === SdkErrorCode.SendFailed
    );
  }
  return thrown instanceof TypeError && /fetch failed|network/i.test(thrown.message);
}

function isTransportDetail(error: ToolError): boolean {
  const details = error.details as { transport?: unknown } | undefined;
  return details?.transport === true;
}

/**
 * What a failed `callTool` becomes (see README, "Error codes"). `stopped` says whether our own
 * signal ended the call, which the SDK reports as a timeout in both cases.
 */
export function errorFromThrown(thrown: unknown, site: CallSite, stopped: StopCause | undefined): ToolError {
  const where = `${site.server}/${site.tool}`;
  if (stopped === 'cancelled') return new ToolError('CANCELLED', `${where}: the call was cancelled`, site);
  if (stopped === 'timeout') return new ToolError('TIMEOUT', `${where}: no answer in time`, site);
  if (thrown instanceof ToolError) return thrown;
  if (thrown instanceof UnauthorizedError) {
    return new ToolError('PERMISSION_DENIED', `${where}: not authorized by the server`, site);
  }
  if (ProtocolError.isInstance(thrown)) {
    const error = thrown as ProtocolError;
    const code: ErrorCode = error.code === -32602 ? 'INVALID_PARAMETER' : 'SERVICE_UNAVAILABLE';
    const message = `${where}: ${untrustedText(error.message, MAX_MESSAGE)}`;
    return new ToolError(code, message, { ...site, mcpCode: error.code });
  }
  if (SdkHttpError.isInstance(thrown)) {
    const status = (thrown as SdkHttpError).data?.status ?? 0;
    const code: ErrorCode =
      status === 401 || status === 403
        ? 'PERMISSION_DENIED'
        : status === 429
          ? 'RATE_LIMITED'
          : 'SERVICE_UNAVAILABLE';
    return new ToolError(code, `${where}: HTTP ${status}`, { ...site, httpStatus: status });
  }
  if (SdkError.isInstance(thrown)) {
    const error = thrown as SdkError;
    if (error.code === SdkErrorCode.RequestTimeout) {
      return new ToolError('TIMEOUT', `${where}: no answer in time`, site);
    }
    if (error.code === SdkErrorCode.InvalidResult) {
      return new ToolError('INVALID_OUTPUT', `${where}: ${untrustedText(error.message, MAX_MESSAGE)}`, site);
    }
    const transport = isTransportFailure(error);
    // The SDK's own words may quote what the server sent: cleaned like every server text.
    const message = untrustedText(error.message, MAX_MESSAGE);
    return new ToolError('SERVICE_UNAVAILABLE', `${where}: ${message}`, { ...site, transport });
  }
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  const transport = isTransportFailure(thrown);
  return new ToolError('SERVICE_UNAVAILABLE', `${where}: ${untrustedText(message, MAX_MESSAGE)}`, {
    ...site,
    transport,
  });
}

/** A server lost mid-call: the pending call fails at once, marked as a transport failure. */
export function serverGone(site: CallSite, why: string): ToolError {
  return new ToolError('SERVICE_UNAVAILABLE', `${site.server}/${site.tool}: ${why}`, {
    ...site,
    transport: true,
  });
}

const SAYS_INPUT_WRONG =
  /input validation error|invalid (?:argument|param|input)|validation (?:error|failed)|-32602|must be|is required|expected .+ received/i;
const SAYS_NOT_FOUND = /not found|no such|does not exist|unknown (?:id|key|item)/i;
const SAYS_DENIED = /permission|forbidden|unauthori[sz]ed|access denied|not allowed/i;
const SAYS_RATE_LIMITED = /rate.?limit|too many requests|quota/i;
const SAYS_TIMEOUT = /timed? ?out|deadline exceeded/i;

/**
 * An `isError` result as a typed error. A server that follows seed 001 ("errors are data")
 * says its code: `{"error": {"code": "INVALID_PARAMETER", ...}}` as structured content or as
 * the text. Otherwise the text decides, checked in this order: input was wrong →
 * INVALID_PARAMETER; missing → NOT_FOUND; refused → PERMISSION_DENIED; throttled →
 * RATE_LIMITED; timed out → TIMEOUT; anything else → SERVICE_UNAVAILABLE (the tool failed,
 * a fallback may help). The text is untrusted: it is cleaned and capped.
 */
export function errorFromResult(text: string, structured: unknown, site: CallSite): ToolError {
  const declared = declaredError(structured) ?? declaredError(parseJson(text));
  const message = untrustedText(declared?.message ?? text, MAX_MESSAGE) || 'the tool reported an error';
  const where = `${site.server}/${site.tool}`;
  if (declared !== undefined) return new ToolError(declared.code, `${where}: ${message}`, site);
  const code: ErrorCode = SAYS_INPUT_WRONG.test(text)
    ? 'INVALID_PARAMETER'
    : SAYS_NOT_FOUND.test(text)
      ? 'NOT_FOUND'
      : SAYS_DENIED.test(text)
        ? 'PERMISSION_DENIED'
        : SAYS_RATE_LIMITED.test(text)
          ? 'RATE_LIMITED'
          : SAYS_TIMEOUT.test(text)
            ? 'TIMEOUT'
            : 'SERVICE_UNAVAILABLE';
  return new ToolError(code, `${where}: ${message}`, site);
}

function declaredError(value: unknown): { code: ErrorCode; message?: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (!isErrorCode(code) || !SERVER_CODES.has(code)) return undefined;
  return typeof message === 'string' ? { code, message } : { code };
}

function parseJson(text: string): unknown {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
