import { TRACE_ID } from './run-trace-ids.js';

/** The caller's span, from a W3C `traceparent` header: a run started by the request is its child. */
export interface TraceParent {
  readonly traceId: string;
  /** The caller's span id (16 lowercase hex digits). */
  readonly spanId: string;
  /** The caller's sampling decision (flag 01): the run's spans follow it. */
  readonly sampled: boolean;
}

// version "-" trace-id "-" parent-id "-" trace-flags, then (versions after 00 only) "-" more.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/;

/**
 * The parent a `traceparent` header names (W3C Trace Context, level 1: version 00, and later
 * versions read by their first four fields); `undefined` for an absent or malformed header —
 * never an error: the run then starts a trace of its own.
 */
export function readTraceParent(header: string | undefined): TraceParent | undefined {
  const match = TRACEPARENT.exec(header?.trim() ?? '');
  if (match === null) return undefined;
  const [, version = '', traceId = '', spanId = '', flags = '', more] = match;
  if (version === 'ff' || (version === '00' && more !== undefined)) return undefined;
  if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The header that names `parent` (as stored with a run, and read back with `readTraceParent`). */
export function formatTraceParent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${parent.sampled ? '01' : '00'}`;
}
