import type { z } from 'zod';
import { ToolError, describeThrown, type ErrorCode } from '../errors.js';
import type { Observation, ObservationLayer, ObservationStatus } from '../observation.js';
import type { Principal } from '../principal.js';
import { maskPii, maskPiiText } from '../sanitize/mask-pii.js';
import type { AnyTool, CheckResult, ToolContext } from '../tool.js';
import type { RunDeps } from '../util/deps.js';

/** What acting needs from the run. Shared by the ReAct loop and (later) the plan executor. */
export interface ActEnv {
  readonly registry: ReadonlyMap<string, AnyTool>;
  readonly principal: Principal;
  readonly runId: string;
  /** Aborts when the run is cancelled or its deadline passes. */
  readonly signal: AbortSignal;
  readonly defaultTimeoutMs: number;
  readonly deps: RunDeps;
}

export interface ActRequest {
  readonly actId: string;
  readonly tool: string;
  readonly input: unknown;
}

const TOOL_TIMEOUT = Symbol('tool timeout');

/**
 * Act and observe: validate the input with the tool's strict schema, run it under its
 * timeout and the run's signal, then check status → output schema → business rule, and mask
 * PII. Never throws: every outcome is an `Observation`.
 */
export async function executeAction(request: ActRequest, env: ActEnv): Promise<Observation> {
  const started = env.deps.monotonic();
  const { actId } = request;
  const observe = (
    status: ObservationStatus,
    body: {
      result?: unknown;
      code?: ErrorCode;
      message?: string;
      details?: unknown;
      layer?: ObservationLayer;
    },
    source = `tool:${request.tool}`,
  ): Observation => {
    const base = { actId, tool: request.tool, status, source, durationMs: env.deps.monotonic() - started };
    if (status === 'ok') return { ...base, result: body.result };
    const error = {
      code: body.code ?? 'INTERNAL',
      message: maskPiiText(body.message ?? ''),
      layer: body.layer ?? 'status',
      ...(body.details === undefined ? {} : { details: maskPii(body.details) }),
    };
    return { ...base, error };
  };

  const tool = env.registry.get(request.tool);
  if (tool === undefined) {
    const available = [...env.registry.keys()];
    return observe(
      'rejected',
      {
        code: 'UNKNOWN_TOOL',
        message: `no tool named ${JSON.stringify(request.tool)}; available: ${available.join(', ') || 'none'}`,
        layer: 'input',
      },
      'runtime',
    );
  }
  const input = tool.input.safeParse(request.input);
  if (!input.success) {
    return observe(
      'rejected',
      {
        code: 'INVALID_PARAMETER',
        message: describeIssues(input.error),
        details: issueList(input.error),
        layer: 'input',
      },
      'runtime',
    );
  }

  // The tool's signal aborts with the run or at the tool's timeout. Its AbortController is
  // created only when the tool reads `ctx.signal` (one costs microseconds; most tools never
  // look), already aborted if the stop came first. `abandon` settles the race at once.
  let stopped: { readonly reason: unknown } | undefined;
  let controller: AbortController | undefined;
  let abandon: ((reason: unknown) => void) | undefined;
  const stop = (reason: unknown): void => {
    if (stopped !== undefined) return;
    stopped = { reason };
    abandon?.(reason);
    controller?.abort(reason);
  };
  const onRunAbort = (): void => stop(env.signal.reason);
  if (env.signal.aborted) onRunAbort();
  else env.signal.addEventListener('abort', onRunAbort, { once: true });
  const timeoutMs = tool.timeoutMs ?? env.defaultTimeoutMs;
  const timer = env.deps.setTimer(() => stop(TOOL_TIMEOUT), timeoutMs);
  const ctx: ToolContext = {
    principal: env.principal,
    runId: env.runId,
    actId,
    get signal(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController();
        if (stopped !== undefined) controller.abort(stopped.reason);
      }
      return controller.signal;
    },
  };

  let output: unknown;
  try {
    // Resolves with the tool's result, or rejects as soon as the tool is stopped (abandoned).
    output = await new Promise<unknown>((resolve, reject) => {
      if (stopped !== undefined) return reject(stopped.reason);
      abandon = reject;
      new Promise<unknown>((inner) => inner(tool.run(input.data, ctx))).then(resolve, reject);
    });
  } catch (thrown) {
    if (stopped !== undefined) {
      return stopped.reason === TOOL_TIMEOUT
        ? observe('timeout', { code: 'TIMEOUT', message: `${tool.name} took longer than ${timeoutMs} ms` })
        : observe('error', { code: 'CANCELLED', message: 'the run was stopped while the tool ran' });
    }
    if (thrown instanceof ToolError) {
      return observe('error', { code: thrown.code, message: thrown.message, details: thrown.details });
    }
    return observe('error', { code: 'INTERNAL', message: `${tool.name} failed: ${describeThrown(thrown)}` });
  } finally {
    env.deps.clearTimer(timer);
    env.signal.removeEventListener('abort', onRunAbort);
  }

  const checkedOutput = tool.output.safeParse(output);
  if (!checkedOutput.success) {
    return observe('error', {
      code: 'INVALID_OUTPUT',
      message: `${tool.name} returned a result that fails its output schema: ${describeIssues(checkedOutput.error)}`,
      layer: 'schema',
    });
  }
  const verdict = runCheck(tool, checkedOutput.data, input.data);
  if (verdict !== true) {
    return observe('error', { code: verdict.code, message: verdict.message, layer: 'check' });
  }
  return observe('ok', { result: maskPii(checkedOutput.data) });
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

function issueList(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', message: issue.message }));
}

function describeIssues(error: z.ZodError): string {
  return issueList(error)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
}
