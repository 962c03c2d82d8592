import type { ErrorCode } from '../errors.js';
import { describeThrown } from '../errors.js';
import type { Observation, ObservationLayer, ObservationStatus } from '../observation.js';
import type { Principal } from '../principal.js';
import { maskPii, maskPiiText } from '../sanitize/mask-pii.js';
import type { AnyTool, CheckResult, ToolProgress } from '../tool.js';
import type { RunDeps } from '../util/deps.js';
import { invokeTool, type Invocation } from './invoke-tool.js';
import type { AbortLike } from './run-abort.js';
import { checkAgainst, describeIssues } from './validate-io.js';
import { toolSpec } from './tool-catalog.js';

/** What acting needs from the run. Shared by the ReAct loop and (later) the plan executor. */
export interface ActEnv {
  readonly registry: ReadonlyMap<string, AnyTool>;
  readonly principal: Principal;
  readonly runId: string;
  /** Aborts when the run is cancelled or its deadline passes. */
  readonly signal: AbortLike;
  readonly defaultTimeoutMs: number;
  readonly deps: RunDeps;
  /** Where tools' progress reports go (the loop, which sets it when it starts); absent = dropped. */
  progress?: ToolProgressSink | undefined;
}

export interface ToolProgressSink {
  toolProgress(actId: string, tool: string, update: ToolProgress): void;
}

export interface ActRequest {
  readonly actId: string;
  readonly tool: string;
  readonly input: unknown;
}

interface Outcome {
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
  const input = checkAgainst(tool.input, request.input, { refuseKeysOutside: toolSpec(tool).inputSchema });
  if (!input.ok) {
    const outcome: Outcome = {
      code: 'INVALID_PARAMETER',
      message: describeIssues(input.issues),
      details: input.issues,
      layer: 'input',
    };
    return observe(request, env, started, 'rejected', outcome, 'runtime');
  }
  const invoked = invokeTool(tool, input.value, request.actId, env);
  return invoked instanceof Promise
    ? invoked.then((settled) => checkResult(request, env, started, tool, input.value, settled))
    : checkResult(request, env, started, tool, input.value, invoked);
}

function checkResult(
  request: ActRequest,
  env: ActEnv,
  started: number,
  tool: AnyTool,
  input: unknown,
  invoked: Invocation,
): Observation {
  if (!invoked.ok) return observe(request, env, started, invoked.status, invoked);
  const output = checkAgainst(tool.output, invoked.output, {});
  if (!output.ok) {
    const message = `${tool.name} returned a result that fails its output schema: ${describeIssues(output.issues)}`;
    return observe(request, env, started, 'error', { code: 'INVALID_OUTPUT', message, layer: 'schema' });
  }
  const verdict = runCheck(tool, output.value, input);
  if (verdict !== true) return observe(request, env, started, 'error', { ...verdict, layer: 'check' });
  let masked: unknown;
  try {
    masked = maskPii(output.value);
  } catch (thrown) {
    const message = `${tool.name} returned a result that is not JSON: ${describeThrown(thrown)}`;
    return observe(request, env, started, 'error', { code: 'INVALID_OUTPUT', message, layer: 'schema' });
  }
  return observe(request, env, started, 'ok', { result: masked });
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
  if (status === 'ok') return { actId, tool, status, result: outcome.result, source, durationMs };
  const error = {
    code: outcome.code ?? 'INTERNAL',
    message: maskPiiText(outcome.message ?? ''),
    layer: outcome.layer ?? 'status',
    ...(outcome.details === undefined ? {} : { details: safeMask(outcome.details) }),
  };
  return { actId, tool, status, error, source, durationMs };
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
