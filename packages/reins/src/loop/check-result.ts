import type { ErrorCode } from '../errors.js';
import { describeThrown } from '../errors.js';
import { maskPii, toJson } from '../sanitize/mask-pii.js';
import { blobRefFor, memoryBlobStore, utf8Bytes, type BlobStore } from '../blob-store.js';
import type { AnyTool, CheckResult } from '../tool.js';
import type { Observation } from '../observation.js';
import type { ActEnv, ActRequest } from './act-env.js';
import type { Invocation } from './invoke-tool.js';
import { observe, observeResult } from './observe.js';
import { checkAgainst, describeIssues } from './validate-io.js';

/**
 * A tool's settled call, checked: its status, then the output schema and the business rule;
 * the result is masked (PII) in its JSON form, and one too large for the prompt is stored by
 * reference.
 */
export function checkResult(
  request: ActRequest,
  env: ActEnv,
  started: number,
  tool: AnyTool,
  input: unknown,
  invoked: Invocation,
): Observation | Promise<Observation> {
  if (!invoked.ok) return observe(request, env, started, invoked.status, invoked);
  const output = checkAgainst(tool.output, invoked.output);
  const attempts = invoked.attempts;
  if (!output.ok) {
    const message = `${tool.name} returned a result that fails its output schema: ${describeIssues(output.issues)}`;
    return observe(request, env, started, 'error', {
      code: 'INVALID_OUTPUT',
      message,
      layer: 'schema',
      attempts,
    });
  }
  const verdict = runCheck(tool, output.value, input);
  if (verdict !== true)
    return observe(request, env, started, 'error', { ...verdict, layer: 'check', attempts });
  let masked: unknown;
  try {
    masked = maskPii(output.value);
  } catch (thrown) {
    const message = `${tool.name} returned a result that is not JSON: ${describeThrown(thrown)}`;
    return observe(request, env, started, 'error', { code: 'INVALID_OUTPUT', message, layer: 'schema' });
  }
  const json = toJson(masked);
  const limit = env.largeResultBytes ?? DEFAULT_LARGE_RESULT_BYTES;
  // A JSON string's UTF-8 size is between its length and 3× its length: count only near the line.
  if (json !== undefined && json.length * 3 > limit && utf8Bytes(json) > limit) {
    return storeLarge(request, env, started, json, attempts);
  }
  if (attempts === undefined) return observeResult(request, env, started, masked);
  return observe(request, env, started, 'ok', { result: masked, attempts });
}

/** Results over this many UTF-8 bytes (as JSON) are stored by reference (seed 001, lesson 5). */
export const DEFAULT_LARGE_RESULT_BYTES = 100_000;
/** Characters of a large result shown to the model, after the marker. */
const LARGE_PREVIEW_CHARS = 2_000;

/** Runs without their own blob store keep large results here (in-process, bounded). */
export const defaultBlobStore: BlobStore = memoryBlobStore();

/**
 * A result too large for the prompt and the log: stored whole in the blob store, the
 * observation keeps its reference, and the model sees a marked, truncated summary. A store
 * that fails still leaves the summary, saying the rest was not kept.
 */
async function storeLarge(
  request: ActRequest,
  env: ActEnv,
  started: number,
  json: string,
  attempts: number | undefined,
): Promise<Observation> {
  const ref = blobRefFor(env.runId, request.actId);
  const bytes = utf8Bytes(json);
  const preview = `${json.slice(0, LARGE_PREVIEW_CHARS)}…`;
  try {
    await (env.blobStore ?? defaultBlobStore).put(ref, json);
  } catch (thrown) {
    const result = `[large result: ${bytes} bytes, not stored (${describeThrown(thrown)}); only its first ${LARGE_PREVIEW_CHARS} characters are shown] ${preview}`;
    return observe(request, env, started, 'ok', { result, attempts });
  }
  const result = `[large result: ${bytes} bytes, stored as ${ref}; its first ${LARGE_PREVIEW_CHARS} characters are shown] ${preview}`;
  return observe(request, env, started, 'ok', { result, resultRef: { ref, bytes }, attempts });
}

function runCheck(
  tool: AnyTool,
  output: unknown,
  input: unknown,
): true | { code: ErrorCode; message: string } {
  if (tool.check === undefined) return true;
  let result: CheckResult;
  try {
    result = tool.check(output, input);
  } catch (thrown) {
    return { code: 'CHECK_FAILED', message: `business check threw: ${describeThrown(thrown)}` };
  }
  if (result === true) return true;
  return typeof result === 'string' ? { code: 'CHECK_FAILED', message: result } : result;
}
