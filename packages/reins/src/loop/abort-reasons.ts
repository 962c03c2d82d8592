/**
 * Why a signal aborted. Real `DOMException`s (not symbols), so a tool that calls
 * `signal.throwIfAborted()` or hands the signal to `fetch` gets an ordinary `AbortError` /
 * `TimeoutError`; the runtime tells them apart by identity.
 */
export const RUN_CANCELLED = new DOMException('the run was cancelled', 'AbortError');
export const RUN_DEADLINE = new DOMException("the run's deadline passed", 'TimeoutError');
export const TOOL_TIMEOUT = new DOMException('the tool call timed out', 'TimeoutError');
