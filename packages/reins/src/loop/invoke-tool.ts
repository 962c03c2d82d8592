import { ToolError, describeThrown, type ErrorCode } from '../errors.js';
import type { ObservationStatus } from '../observation.js';
import type { AnyTool, ToolContext } from '../tool.js';
import { RUN_DEADLINE, TOOL_TIMEOUT } from './abort-reasons.js';
import type { ActEnv } from './execute-action.js';

export type Invocation =
  | { readonly ok: true; readonly output: unknown }
  | {
      readonly ok: false;
      readonly status: ObservationStatus;
      readonly code: ErrorCode;
      readonly message: string;
      readonly details?: unknown;
    };

/**
 * Runs the tool under its timeout and the run's signal. A tool that returns synchronously
 * needs neither (nothing can interrupt it), so no timer or listener is armed for it. The
 * tool's own AbortController is made only if the tool reads `ctx.signal`.
 */
export async function invokeTool(
  tool: AnyTool,
  input: unknown,
  actId: string,
  env: ActEnv,
): Promise<Invocation> {
  if (env.signal.aborted) return stoppedBy(env.signal.reason, tool, 0);
  let stopped: { readonly reason: unknown } | undefined;
  let controller: AbortController | undefined;
  let abandon: ((reason: unknown) => void) | undefined;
  const stop = (reason: unknown): void => {
    if (stopped !== undefined) return;
    stopped = { reason };
    abandon?.(reason);
    controller?.abort(reason);
  };
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

  let value: unknown;
  try {
    value = tool.run(input, ctx);
  } catch (thrown) {
    return failedWith(thrown, tool);
  }
  if (!isThenable(value)) return { ok: true, output: value };

  const timeoutMs = tool.timeoutMs ?? env.defaultTimeoutMs;
  const onRunAbort = (): void => stop(env.signal.reason);
  env.signal.addEventListener('abort', onRunAbort, { once: true });
  const timer = env.deps.setTimer(() => stop(TOOL_TIMEOUT), timeoutMs);
  try {
    // Settles with the tool, or as soon as it is stopped (the tool is then abandoned).
    const output = await new Promise<unknown>((resolve, reject) => {
      abandon = reject;
      value.then(resolve, reject);
    });
    return { ok: true, output };
  } catch (thrown) {
    return stopped === undefined ? failedWith(thrown, tool) : stoppedBy(stopped.reason, tool, timeoutMs);
  } finally {
    env.deps.clearTimer(timer);
    env.signal.removeEventListener('abort', onRunAbort);
  }
}

function stoppedBy(reason: unknown, tool: AnyTool, timeoutMs: number): Invocation {
  if (reason === TOOL_TIMEOUT) {
    return {
      ok: false,
      status: 'timeout',
      code: 'TIMEOUT',
      message: `${tool.name} took longer than ${timeoutMs} ms`,
    };
  }
  if (reason === RUN_DEADLINE) {
    return {
      ok: false,
      status: 'timeout',
      code: 'TIMEOUT',
      message: `the run's deadline passed while ${tool.name} ran`,
    };
  }
  return {
    ok: false,
    status: 'error',
    code: 'CANCELLED',
    message: `the run was cancelled while ${tool.name} ran`,
  };
}

function failedWith(thrown: unknown, tool: AnyTool): Invocation {
  if (thrown instanceof ToolError) {
    return {
      ok: false,
      status: 'error',
      code: thrown.code,
      message: thrown.message,
      details: thrown.details,
    };
  }
  return {
    ok: false,
    status: 'error',
    code: 'INTERNAL',
    message: `${tool.name} failed: ${describeThrown(thrown)}`,
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
