import type { ErrorCode } from '../errors.js';
import { describeThrown } from '../errors.js';
import type { Degraded, Observation, ObservationLayer, ObservationStatus } from '../observation.js';
import type { Principal } from '../principal.js';
import { maskPii, maskPiiText, toJson } from '../sanitize/mask-pii.js';
import { blobRefFor, memoryBlobStore, utf8Bytes, type BlobRef, type BlobStore } from '../blob-store.js';
import { needsApproval, type AnyTool, type CheckResult, type ToolProgress } from '../tool.js';
import type { RunDeps } from '../util/deps.js';
import { invokeTool, type Invocation } from './invoke-tool.js';
import type { ToolPolicies } from '../policies/tool-policies.js';
import type { RunLimits } from '../limits.js';
import type { ApprovalOutcome } from './approvals.js';
import type { AbortLike } from './run-abort.js';
import { checkAgainst, describeIssues, sandboxInput, type Checked, type Issue } from './validate-io.js';
import { toolSpec } from './tool-catalog.js';
import type { ReplayedAct, RunReplay } from './run-replay.js';

/** What acting needs from the run. Shared by the ReAct loop and (later) the plan executor. */
export interface ActEnv {
  readonly registry: ReadonlyMap<string, AnyTool>;
  readonly principal: Principal;
  readonly runId: string;
  /** Aborts when the run is cancelled or its deadline passes. */
  readonly signal: AbortLike;
  readonly defaultTimeoutMs: number;
  /** Where results over `largeResultBytes` go (default: `defaultBlobStore`, in-process). */
  readonly blobStore?: BlobStore | undefined;
  /** Results larger than this (UTF-8 bytes of their JSON) are stored by reference (default 100 000). */
  readonly largeResultBytes?: number;
  /** Longest model-written string without its own schema limit (default 100). */
  readonly maxStringChars?: number;
  readonly deps: RunDeps;
  /** The tools' guards (breakers, caps) and metrics hooks, shared across runs (default: `defaultToolPolicies`). */
  readonly policies?: ToolPolicies | undefined;
  /**
   * Asks the run's user to approve a call of a tool that needs it (validated input in hand);
   * absent = no approval step (direct `executeAction` callers are the app's own code).
   */
  approval?: ApprovalGate | undefined;
  /** Where tools' progress reports go (the loop, which sets it when it starts); absent = dropped. */
  progress?: ToolProgressSink | undefined;
  /** A run rebuilt from its log: completed acts are not made again (see `RunReplay`). */
  replay?: RunReplay | undefined;
}

/** A run's act environment from its parts (ReAct and plan runs build it the same way). */
export function runActEnv(
  registry: ReadonlyMap<string, AnyTool>,
  principal: Principal,
  runId: string,
  signal: AbortLike,
  limits: RunLimits,
  blobStore: BlobStore,
  deps: RunDeps,
  policies: ToolPolicies | undefined,
): ActEnv {
  return {
    registry,
    principal,
    runId,
    signal,
    defaultTimeoutMs: limits.toolTimeoutMs,
    maxStringChars: limits.maxStringChars,
    largeResultBytes: limits.largeResultBytes,
    blobStore,
    deps,
    policies,
    progress: undefined, // the run connects itself (one object per run, not a copy)
  };
}

export interface ApprovalGate {
  requestApproval(actId: string, tool: string, input: unknown): Promise<ApprovalOutcome>;
}

export { needsApproval };

export interface ToolProgressSink {
  toolProgress(actId: string, tool: string, update: ToolProgress): void;
  /** Optional: a sink that does not record tool spans drops them. */
  toolSpan?(actId: string, tool: string, name: string, startedAt: number, endedAt: number, ok: boolean): void;
}

export interface ActRequest {
  readonly actId: string;
  readonly tool: string;
  readonly input: unknown;
  /** Set for a fallback's own call: its fallback is not followed. */
  readonly noFallback?: boolean;
}

interface Outcome {
  readonly attempts?: number | undefined;
  readonly resultRef?: BlobRef;
  readonly result?: unknown;
  readonly code?: ErrorCode;
  readonly message?: string;
  readonly details?: unknown;
  readonly layer?: ObservationLayer;
}

/**
 * Act and observe: the tool must exist and the input pass its schema (no stray keys), then
 * it runs under its timeout and the run's signal; its result must pass the tool status,
 * the output schema and the business rule, and is masked (PII) in its JSON form. Never
 * throws: every outcome is an `Observation`.
 */
export async function executeAction(request: ActRequest, env: ActEnv): Promise<Observation> {
  return actOn(request, env);
}

/**
 * `executeAction` without the promise when the tool answered synchronously: the loop's hot
 * path saves the microtask hops (see bench/).
 */
export function actOn(
  request: ActRequest,
  env: ActEnv,
  startedAt?: number,
): Observation | Promise<Observation> {
  const started = startedAt ?? env.deps.now();
  const tool = env.registry.get(request.tool);
  if (tool === undefined) {
    const available = [...env.registry.keys()].join(', ') || 'none';
    const message = `no tool named ${JSON.stringify(request.tool)}; available: ${available}`;
    const outcome: Outcome = { code: 'UNKNOWN_TOOL', message, layer: 'input' };
    return observe(request, env, started, 'rejected', outcome, 'runtime');
  }
  const inputSchema = toolSpec(tool).inputSchema;
  const sandboxIssues: Issue[] = [];
  const given = sandboxInput(
    request.input,
    inputSchema,
    env.maxStringChars ?? DEFAULT_STRING_CHARS,
    sandboxIssues,
  );
  const input: Checked =
    sandboxIssues.length === 0
      ? checkAgainst(tool.input, given, { refuseKeysOutside: inputSchema })
      : { ok: false, issues: sandboxIssues };
  if (!input.ok) {
    const outcome: Outcome = {
      code: 'INVALID_PARAMETER',
      message: describeIssues(input.issues),
      details: input.issues,
      layer: 'input',
    };
    return observe(request, env, started, 'rejected', outcome, 'runtime');
  }
  const gate = env.approval;
  if (gate !== undefined && needsApproval(tool)) {
    return gate.requestApproval(request.actId, tool.name, input.value).then((outcome) => {
      if (outcome.kind !== 'approved') return refusedByUser(request, env, started, outcome);
      const approved = invokeAndCheck(request, env, started, tool, input.value);
      const stamp = (o: Observation): Observation => ({ ...o, approval: outcome });
      return approved instanceof Promise ? approved.then(stamp) : stamp(approved);
    });
  }
  return invokeAndCheck(request, env, started, tool, input.value);
}

function refusedByUser(
  request: ActRequest,
  env: ActEnv,
  started: number,
  outcome: ApprovalOutcome,
): Observation {
  const [code, message]: [ErrorCode, string] =
    outcome.kind === 'declined'
      ? [
          'PERMISSION_DENIED',
          `the user declined this call of ${request.tool}; do not retry it, tell the user what was not done`,
        ]
      : outcome.kind === 'cancelled'
        ? [
            'CANCELLED',
            `the run was cancelled before this call of ${request.tool} was approved; it was not made`,
          ]
        : ['TIMEOUT', `no approval for this call of ${request.tool} arrived in time; it was not made`];
  const observation = observe(
    request,
    env,
    started,
    'rejected',
    { code, message, layer: 'guard' },
    'runtime',
  );
  return { ...observation, approval: outcome };
}

function invokeAndCheck(
  request: ActRequest,
  env: ActEnv,
  started: number,
  tool: AnyTool,
  input: unknown,
): Observation | Promise<Observation> {
  const replayed = env.replay?.act(request.actId, tool);
  if (replayed !== undefined) return replayedObservation(request, env, started, replayed);
  const invoked = invokeTool(tool, input, request.actId, env);
  const checked = (settled: Invocation): Observation | Promise<Observation> => {
    const observation = checkResult(request, env, started, tool, input, settled);
    return observation instanceof Promise
      ? observation.then((large) => orFallback(large, tool, request, env, started))
      : orFallback(observation, tool, request, env, started);
  };
  return invoked instanceof Promise ? invoked.then(checked) : checked(invoked);
}

/**
 * An act of a rebuilt run's history: its recorded observation, or — when it may have changed
 * something before the crash and left no observation — `OUTCOME_UNKNOWN`, and the run stops
 * for a person to check (the call is not made again).
 */
function replayedObservation(
  request: ActRequest,
  env: ActEnv,
  started: number,
  replayed: Exclude<ReplayedAct, undefined>,
): Observation {
  if (replayed.kind === 'observed') return replayed.observation;
  const message = `the process stopped while ${request.tool} was running; it may or may not have taken effect, so it was not run again: a person should check`;
  const observation = observe(
    request,
    env,
    started,
    'error',
    { code: 'OUTCOME_UNKNOWN', message, layer: 'guard' },
    'runtime',
  );
  env.replay?.onUnknown();
  return observation;
}

/** The parameter sandbox's cap for strings whose schema sets no `maxLength` (seed 003 §4.4). */
export const DEFAULT_STRING_CHARS = 100;

/** Failures that a fallback may cover: the tool (or what is behind it) is failing, not the input. */
const FALLBACK_CODES: ReadonlySet<ErrorCode> = new Set([
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
  'RATE_LIMITED',
  'INTERNAL',
  'INVALID_OUTPUT',
]);

/**
 * When the tool failed in a way its fallback can cover (and the run goes on), the fallback
 * tool answers the same input through the same checks, labeled `degraded`. One level: a
 * fallback's own fallback is not followed.
 */
function orFallback(
  observation: Observation,
  tool: AnyTool,
  request: ActRequest,
  env: ActEnv,
  started: number,
): Observation | Promise<Observation> {
  const error = observation.error;
  if (
    tool.fallback === undefined ||
    request.noFallback === true ||
    error === undefined ||
    !FALLBACK_CODES.has(error.code)
  )
    return observation;
  if (env.signal.aborted) return observation;
  const backup = env.registry.get(tool.fallback.tool);
  if (backup === undefined) return observation;
  const degraded: Degraded = {
    tool: tool.name,
    fallback: backup.name,
    reason: { code: error.code, message: error.message },
    lost: tool.fallback.lost,
  };
  // Only a fallback that answered makes a degraded answer; one that failed too leaves the failure, saying so.
  const label = (answer: Observation): Observation =>
    answer.status === 'ok'
      ? { ...answer, tool: tool.name, degraded }
      : {
          ...observation,
          error: {
            ...error,
            message: `${error.message}; its fallback ${backup.name} failed too: ${answer.error?.code ?? 'INTERNAL'}: ${answer.error?.message ?? ''}`,
          },
        };
  const answered = actOn({ ...request, tool: backup.name, noFallback: true }, env, started);
  return answered instanceof Promise ? answered.then(label) : label(answered);
}

function checkResult(
  request: ActRequest,
  env: ActEnv,
  started: number,
  tool: AnyTool,
  input: unknown,
  invoked: Invocation,
): Observation | Promise<Observation> {
  if (!invoked.ok) return observe(request, env, started, invoked.status, invoked);
  const output = checkAgainst(tool.output, invoked.output, {});
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

function observe(
  request: ActRequest,
  env: ActEnv,
  started: number,
  status: ObservationStatus,
  outcome: Outcome,
  source = `tool:${request.tool}`,
): Observation {
  const { actId, tool } = request;
  const durationMs = env.deps.now() - started;
  const attempts = outcome.attempts;
  const policies = env.policies;
  if (status === 'ok') {
    if (policies?.reporting === true) policies.report({ tool, status, durationMs, attempts: attempts ?? 1 });
    const resultRef = outcome.resultRef;
    if (attempts === undefined && resultRef === undefined) {
      return { actId, tool, status, result: outcome.result, source, durationMs };
    }
    return {
      actId,
      tool,
      status,
      result: outcome.result,
      source,
      durationMs,
      ...(attempts === undefined ? {} : { attempts }),
      ...(resultRef === undefined ? {} : { resultRef }),
    };
  }
  const layer = outcome.layer ?? 'status';
  let code = outcome.code ?? 'INTERNAL';
  let message = maskPiiText(outcome.message ?? '');
  let details = outcome.details;
  if (layer === 'status' && (code === 'NOT_FOUND' || code === 'PERMISSION_DENIED')) {
    // A row of another tenant and no row at all must look the same to the model.
    code = 'NOT_FOUND';
    message = `${tool}: not found`;
    details = undefined;
  }
  const error = {
    code,
    message,
    layer,
    ...(details === undefined ? {} : { details: safeMask(details) }),
  };
  if (policies?.reporting === true) {
    policies.report({ tool, status, code, durationMs, attempts: attempts ?? (source === 'runtime' ? 0 : 1) });
  }
  return attempts === undefined
    ? { actId, tool, status, error, source, durationMs }
    : { actId, tool, status, error, source, durationMs, attempts };
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

function safeMask(details: unknown): unknown {
  try {
    return maskPii(details);
  } catch {
    return '[details not JSON]';
  }
}
