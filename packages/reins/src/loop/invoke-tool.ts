import { ToolError, describeThrown, type ErrorCode } from '../errors.js';
import type { ObservationStatus } from '../observation.js';
import type { Principal } from '../principal.js';
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
 * The context one act gets. A class (an object literal with a getter costs ~15× more to
 * create), whose AbortController is made only if the tool reads `signal` — most never do.
 */
class ActContext implements ToolContext {
  #controller: AbortController | undefined;
  #stopped: { readonly reason: unknown } | undefined;
  #abandon: ((reason: unknown) => void) | undefined;

  constructor(
    readonly principal: Principal,
    readonly runId: string,
    readonly actId: string,
  ) {}

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#stopped !== undefined) this.#controller.abort(this.#stopped.reason);
    }
    return this.#controller.signal;
  }

  /** Why the act was stopped (timeout, run aborted), if it was. */
  static stoppedBy(ctx: ActContext): { readonly reason: unknown } | undefined {
    return ctx.#stopped;
  }

  static stop(ctx: ActContext, reason: unknown): void {
    if (ctx.#stopped !== undefined) return;
    ctx.#stopped = { reason };
    ctx.#abandon?.(reason);
    ctx.#controller?.abort(reason);
  }

  /** Settles with `pending`, or rejects as soon as the act is stopped (the tool is abandoned). */
  static race(ctx: ActContext, pending: PromiseLike<unknown>): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      if (ctx.#stopped !== undefined) return reject(ctx.#stopped.reason);
      ctx.#abandon = reject;
      pending.then(resolve, reject);
    });
  }
}

/**
 * Runs the tool under its timeout and the run's signal. A tool that returns synchronously
 * needs neither (nothing can interrupt it): it is answered synchronously, with no timer,
 * listener or promise.
 */
export function invokeTool(
  tool: AnyTool,
  input: unknown,
  actId: string,
  env: ActEnv,
): Invocation | Promise<Invocation> {
  if (env.signal.aborted) return stoppedBy(env.signal.reason, tool, 0);
  const ctx = new ActContext(env.principal, env.runId, actId);
  let value: unknown;
  try {
    value = tool.run(input, ctx);
  } catch (thrown) {
    return failedWith(thrown, tool);
  }
  return isThenable(value) ? settleAsync(tool, value, ctx, env) : { ok: true, output: value };
}

async function settleAsync(
  tool: AnyTool,
  pending: PromiseLike<unknown>,
  ctx: ActContext,
  env: ActEnv,
): Promise<Invocation> {
  const timeoutMs = tool.timeoutMs ?? env.defaultTimeoutMs;
  const onRunAbort = (): void => ActContext.stop(ctx, env.signal.reason);
  env.signal.addEventListener('abort', onRunAbort, { once: true });
  const timer = env.deps.setTimer(() => ActContext.stop(ctx, TOOL_TIMEOUT), timeoutMs);
  try {
    return { ok: true, output: await ActContext.race(ctx, pending) };
  } catch (thrown) {
    const stopped = ActContext.stoppedBy(ctx);
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
    const message = `the run's deadline passed while ${tool.name} ran`;
    return { ok: false, status: 'timeout', code: 'TIMEOUT', message };
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

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
