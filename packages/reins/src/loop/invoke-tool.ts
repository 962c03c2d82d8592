import { ToolError, describeThrown, type ErrorCode } from '../errors.js';
import type { ObservationStatus } from '../observation.js';
import type { Principal } from '../principal.js';
import type { AnyTool, ToolContext, ToolProgress } from '../tool.js';
import { RUN_DEADLINE, TOOL_TIMEOUT } from './abort-reasons.js';
import type { ActEnv, ToolProgressSink } from './execute-action.js';
import { isThenable } from '../util/is-thenable.js';
import { ownLazySignal } from '../util/own-lazy-signal.js';

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
 * How one act is stopped: its tool's signal aborts (if the tool ever asked for one: an
 * AbortController costs ~2 µs on Node 20, and most tools never look), and the wait for the
 * tool ends at once (the tool is abandoned if it ignores the signal).
 */
class ActStop {
  #controller: AbortController | undefined;
  stopped: { readonly reason: unknown } | undefined;
  /** The call has settled (progress reports after this are dropped). */
  ended = false;
  #abandon: ((reason: unknown) => void) | undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.stopped !== undefined) this.#controller.abort(this.stopped.reason);
    }
    return this.#controller.signal;
  }

  stop(reason: unknown): void {
    if (this.stopped !== undefined) return;
    this.stopped = { reason };
    this.#abandon?.(reason);
    this.#controller?.abort(reason);
  }

  /** Settles with `pending`, or rejects as soon as the act is stopped. */
  race(pending: PromiseLike<unknown>): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.#abandon = reject;
      // Always handled, even when already stopped: an abandoned tool's late rejection must
      // not become an unhandled rejection (which ends a Node process).
      pending.then(resolve, reject);
      if (this.stopped !== undefined) reject(this.stopped.reason);
    });
  }
}

/**
 * The context one act gets. `signal` is an own enumerable accessor, so a tool that copies
 * the context (`{ ...ctx }`) keeps a real signal, while a tool that never reads it costs no
 * AbortController.
 */
class ActContext implements ToolContext {
  declare readonly signal: AbortSignal;
  readonly principal: Principal;
  readonly runId: string;
  readonly #stop: ActStop;
  readonly #tool: string;
  readonly #sink: ToolProgressSink | undefined;

  constructor(
    env: ActEnv,
    readonly actId: string,
    tool: string,
    stop: ActStop,
  ) {
    this.principal = env.principal;
    this.runId = env.runId;
    this.#stop = stop;
    this.#tool = tool;
    this.#sink = env.progress;
    Object.defineProperty(this, 'signal', ACT_SIGNAL);
  }

  progress(update: ToolProgress): void {
    if (this.#stop.ended || this.#stop.stopped !== undefined) return;
    this.#sink?.toolProgress(this.actId, this.#tool, update);
  }

  static signalOf(ctx: ActContext): AbortSignal {
    return ctx.#stop.signal;
  }
}

const ACT_SIGNAL = ownLazySignal<ActContext>((ctx) => ActContext.signalOf(ctx));

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
  const act = new ActStop();
  const ctx = new ActContext(env, actId, tool.name, act);
  let value: unknown;
  try {
    value = tool.run(input, ctx);
  } catch (thrown) {
    act.ended = true;
    return failedWith(thrown, tool);
  }
  if (isThenable(value)) return settleAsync(tool, value, act, env);
  act.ended = true;
  return { ok: true, output: value };
}

async function settleAsync(
  tool: AnyTool,
  pending: PromiseLike<unknown>,
  act: ActStop,
  env: ActEnv,
): Promise<Invocation> {
  const timeoutMs = tool.timeoutMs ?? env.defaultTimeoutMs;
  const onRunAbort = (): void => act.stop(env.signal.reason);
  // The run may have been aborted while the tool's synchronous part ran.
  if (env.signal.aborted) onRunAbort();
  else env.signal.addEventListener('abort', onRunAbort, { once: true });
  const timer = env.deps.setTimer(() => act.stop(TOOL_TIMEOUT), timeoutMs);
  try {
    return { ok: true, output: await act.race(pending) };
  } catch (thrown) {
    return act.stopped === undefined
      ? failedWith(thrown, tool)
      : stoppedBy(act.stopped.reason, tool, timeoutMs);
  } finally {
    act.ended = true;
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
