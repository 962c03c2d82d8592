import type { BlobRef } from './blob-store.js';
import type { ErrorCode } from './errors.js';
import type { ApprovalOutcome } from './loop/approvals.js';

/**
 * Which layer produced a failed observation: the runtime refused the call before the tool
 * ran (`input`, `guard`), the tool failed (`status`), or its result failed the output
 * schema (`schema`) or the business rule (`check`).
 */
export type ObservationLayer = 'input' | 'guard' | 'status' | 'schema' | 'check';

export type ObservationStatus = 'ok' | 'error' | 'timeout' | 'rejected';

export interface ObservationError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: unknown;
  readonly layer: ObservationLayer;
}

/**
 * What the model sees after an act, already checked (status → schema → rule) and
 * sanitized. `rejected` means the tool never ran (unknown tool, invalid input, repeat).
 */
export interface Observation {
  readonly actId: string;
  readonly tool: string;
  readonly status: ObservationStatus;
  readonly result?: unknown;
  readonly error?: ObservationError;
  /** What produced it: `tool:<name>` or `runtime` (refused before the tool ran). */
  readonly source: string;
  readonly durationMs: number;
  /**
   * Set when the result was too large for the prompt and the log: `result` is then a marked,
   * truncated summary, and the whole result is in the run's blob store under `ref`.
   */
  readonly resultRef?: BlobRef;
  /** Tool calls made for this act, when more than one (retries). */
  readonly attempts?: number;
  /** Set when a fallback answered instead of the tool: what failed and what is lost. */
  readonly degraded?: Degraded;
  /** For a call that needed approval: who answered, when, and how (evidence). */
  readonly approval?: ApprovalOutcome;
}

/** The label of a degraded observation (stamped by the runtime, never by the model). */
export interface Degraded {
  /** The tool that failed (or whose breaker is open). */
  readonly tool: string;
  /** The fallback tool that answered. */
  readonly fallback: string;
  readonly reason: { readonly code: ErrorCode; readonly message: string };
  /** What the answer lacks, from the tool's `fallback.lost`. */
  readonly lost: string;
}
