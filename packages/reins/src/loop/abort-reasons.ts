/**
 * Why a signal aborted. Real `DOMException`s (not symbols), so a tool that calls
 * `signal.throwIfAborted()` or hands the signal to `fetch` gets an ordinary `AbortError` /
 * `TimeoutError`; the runtime tells them apart by identity.
 */
export const RUN_CANCELLED = new DOMException('the run was cancelled', 'AbortError');
export const RUN_DEADLINE = new DOMException("the run's deadline passed", 'TimeoutError');
export const TOOL_TIMEOUT = new DOMException('the tool call timed out', 'TimeoutError');
/** A rebuilt run met an act whose outcome is unknown (see `RunReplay`): it stops for a person. */
export const RUN_OUTCOME_UNKNOWN = new DOMException(
  'an interrupted call may have taken effect',
  'AbortError',
);

/** The stop reason of an abort that stops a run (`stopped`), or `undefined` for a cancel. */
export function stopReasonOf(reason: unknown): 'deadline' | 'outcome_unknown' | undefined {
  if (reason === RUN_DEADLINE) return 'deadline';
  if (reason === RUN_OUTCOME_UNKNOWN) return 'outcome_unknown';
  return undefined;
}
