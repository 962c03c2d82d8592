import { ToolError, describeThrown, type ErrorCode } from '../errors.js';
import type { ObservationStatus } from '../observation.js';
import type { Principal } from '../principal.js';
import type { AnyTool, ToolContext, ToolProgress } from '../tool.js';
import { RUN_DEADLINE, TOOL_TIMEOUT } from './abort-reasons.js';
import type { ActEnv, ToolProgressSink } from './act-env.js';
import { isThenable } from '../util/is-thenable.js';
import type { IBackoff, IBackoffFactory } from 'cockatiel';
import { loadCockatiel } from '../policies/lazy-cockatiel.js';
import { RETRYABLE, defaultToolPolicies, type ToolGuard } from '../policies/tool-policies.js';
import type { RunDeps } from '../util/deps.js';
import { INTERNAL, withOwnSignal } from '../util/own-lazy-signal.js';

/** The outcome of an act's tool call; `attempts` is set when it took more than one. */
export type Invocation =
  | { readonly ok: true; readonly output: unknown; readonly attempts?: number }
  | {
      readonly ok: false;
      readonly status: ObservationStatus;
      readonly code: ErrorCode;
      readonly message: string;
      readonly details?: unknown;
      readonly attempts?: number;
      /** The run stopped the call (deadline, cancel): no verdict on the tool's health. */
      readonly byRun?: boolean;
    };

/**
 * How one act is stopped: its tool's signal aborts (if the tool ever asked for one: an
 * AbortController costs ~2 µs on Node 20, and most tools never look), and the wait for the
 * tool ends at once (the tool is abandoned if it ignores the signal). Also where the act's
 * progress reports and spans go.
 */
class ActStop {
  #controller: AbortController | undefined;
  readonly tool: string;
  readonly sink: ToolProgressSink | undefined;
  readonly now: () => number;
  stopped: { readonly reason: unknown } | undefined;
  /** The call has settled (progress reports after this are dropped). */
  ended = false;
  #abandon: ((reason: unknown) => void) | undefined;

  constructor(tool: string, env: ActEnv) {
    this.tool = tool;
    this.sink = env.progress;
    this.now = env.deps.now;
  }

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

  stopReason(): unknown {
    return this.stopped?.reason;
  }

  /** Resolves true after `ms`, or false as soon as the act is stopped. */
  async wait(ms: number, deps: RunDeps): Promise<boolean> {
    let timer: unknown;
    try {
      await this.race(
        new Promise((resolve) => {
          timer = deps.setTimer(() => resolve(undefined), ms);
          // The run's timers are unref'd (a finished run must not hold a process), but this
          // wait is the run itself: in a plain `node` process (the CLI) nothing else may be
          // left to wait for, and Node would end the process mid-run.
          (timer as { ref?: () => void } | undefined)?.ref?.();
        }),
      );
      return true;
    } catch {
      return false;
    } finally {
      deps.clearTimer(timer);
    }
  }

  /** Settles with `pending`, or rejects as soon as the act is stopped. */
  race(pending: PromiseLike<unknown>): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      // Races nest (the guard's around the tool's): a stop ends each of them.
      const outer = this.#abandon;
      this.#abandon =
        outer === undefined
          ? reject
          : (reason: unknown): void => {
              outer(reason);
              reject(reason);
            };
      // Always handled, even when already stopped: an abandoned tool's late rejection must
      // not become an unhandled rejection (which ends a Node process).
      pending.then(resolve, reject);
      if (this.stopped !== undefined) reject(this.stopped.reason);
    });
  }
}

/**
 * The context one act gets. `signal` is an own enumerable property, so a tool that copies
 * the context (`{ ...ctx }`) keeps a real signal, while a tool that never reads it costs no
 * AbortController (`withOwnSignal`: the constructor returns a proxy, so the getter and the
 * methods read `this[INTERNAL]`, not `#private` fields).
 */
class ActContext implements ToolContext {
  readonly principal: Principal;
  readonly runId: string;
  readonly [INTERNAL]: ActStop;

  constructor(
    env: ActEnv,
    readonly actId: string,
    stop: ActStop,
  ) {
    this.principal = env.principal;
    this.runId = env.runId;
    this[INTERNAL] = stop;
    return withOwnSignal(this);
  }

  get signal(): AbortSignal {
    return this[INTERNAL].signal;
  }

  async span<T>(name: string, work: () => T | Promise<T>): Promise<T> {
    const stop = this[INTERNAL];
    const { tool, sink, now } = stop;
    const startedAt = now();
    let ok = false;
    try {
      const value = await work();
      ok = true;
      return value;
    } finally {
      if (!stop.ended && stop.stopped === undefined) {
        sink?.toolSpan?.(this.actId, tool, String(name), startedAt, now(), ok);
      }
    }
  }

  progress(update: ToolProgress): void {
    const stop = this[INTERNAL];
    if (stop.ended || stop.stopped !== undefined) return;
    stop.sink?.toolProgress(this.actId, stop.tool, update);
  }
}

/**
 * Runs the tool under its policies (`ToolGuard`: breaker, concurrency cap; retries for
 * read-only tools), its timeout (one budget for all attempts) and the run's signal. A tool
 * that returns synchronously while its guard has nothing to record needs none of it: it is
 * answered synchronously, with no timer, listener or promise.
 */
export function invokeTool(
  tool: AnyTool,
  input: unknown,
  actId: string,
  env: ActEnv,
): Invocation | Promise<Invocation> {
  if (env.signal.aborted) return stoppedBy(env.signal.reason, tool, 0);
  const guard = (env.policies ?? defaultToolPolicies).guardFor(tool);
  const act = new ActStop(tool.name, env);
  const ctx = new ActContext(env, actId, act);
  if (!guard.direct) return runAttempts(tool, input, ctx, act, env, guard, undefined);
  const first = callTool(tool, input, ctx);
  if (isThenable(first)) return runAttempts(tool, input, ctx, act, env, guard, first);
  if (first.ok || !RETRYABLE.has(first.code) || guard.policy.retries === 0) {
    act.ended = true;
    if (!first.ok) guard.recordDirectFailure(first);
    return first;
  }
  return runAttempts(tool, input, ctx, act, env, guard, first);
}

/** One call of the tool: its synchronous outcome, or the pending promise it returned. */
function callTool(tool: AnyTool, input: unknown, ctx: ActContext): Invocation | PromiseLike<unknown> {
  try {
    const value: unknown = tool.run(input, ctx);
    // Inside the try: a result whose `then` getter throws is the tool's failure too.
    return isThenable(value) ? value : { ok: true, output: value };
  } catch (thrown) {
    return failedWith(thrown, tool);
  }
}

/**
 * The attempts of one act, under one timer: the first (maybe already made, directly), then
 * retries of transient failures with exponential backoff and jitter (cockatiel), each through
 * the guard, while the budget lasts and the act is not stopped.
 */
async function runAttempts(
  tool: AnyTool,
  input: unknown,
  ctx: ActContext,
  act: ActStop,
  env: ActEnv,
  guard: ToolGuard,
  first: Invocation | PromiseLike<unknown> | undefined,
): Promise<Invocation> {
  const timeoutMs = tool.timeoutMs ?? env.defaultTimeoutMs;
  const endsAt = env.deps.now() + timeoutMs;
  const onRunAbort = (): void => act.stop(env.signal.reason);
  // The run may have been aborted while the tool's synchronous part ran.
  if (env.signal.aborted) onRunAbort();
  else env.signal.addEventListener('abort', onRunAbort, { once: true });
  const timer = env.deps.setTimer(() => act.stop(TOOL_TIMEOUT), timeoutMs);
  const refused = (code: ErrorCode, message: string): Invocation => ({
    ok: false,
    status: 'rejected',
    code,
    message,
  });
  // A stop while the guard was admitting the call (a shared breaker's store, cockatiel loading):
  // the tool is not started.
  // The tool's own promise of the attempt in progress: an attempt the act stopped waiting for
  // (a timeout, a cancel) may still run, and keeps its place in the tool's concurrency cap
  // until it ends. Not stopped, the attempt has ended when its outcome is in (and an earlier
  // attempt's promise, settled, holds nothing).
  let running: Promise<unknown> | undefined;
  const stillRunning = (): Promise<unknown> | undefined => (act.stopped === undefined ? undefined : running);
  const attempt = (): Promise<Invocation> => {
    if (act.stopped !== undefined) return Promise.resolve(stoppedBy(act.stopped.reason, tool, timeoutMs));
    const called = callTool(tool, input, ctx);
    if (!isThenable(called)) return settle(called, act, tool, timeoutMs);
    // Adopted once: a lazy thenable (a query builder) runs its work at each `then`.
    const pending = Promise.resolve(called);
    running = pending;
    return settle(pending, act, tool, timeoutMs);
  };
  let backoff: IBackoff<unknown> | undefined;
  let result: Invocation;
  let attempts = 0;
  try {
    for (;;) {
      if (first !== undefined) {
        result = await settle(first, act, tool, timeoutMs);
        first = undefined;
        if (!result.ok) guard.recordDirectFailure(result);
      } else {
        result = await guarded(guard.run(attempt, refused, stillRunning), act, tool, timeoutMs);
      }
      attempts++;
      if (result.ok || act.stopped !== undefined || result.status === 'rejected') break;
      if (!RETRYABLE.has(result.code) || attempts > guard.policy.retries) break;
      backoff = backoff === undefined ? (await retryBackoff()).next(undefined) : backoff.next(undefined);
      // No retry that the budget cannot hold; a stop during the wait ends the act.
      if (env.deps.now() + backoff.duration >= endsAt) break;
      if (!(await act.wait(backoff.duration, env.deps))) {
        result = stoppedBy(act.stopReason(), tool, timeoutMs);
        break;
      }
    }
  } finally {
    act.ended = true;
    env.deps.clearTimer(timer);
    env.signal.removeEventListener('abort', onRunAbort);
  }
  return attempts > 1 ? { ...result, attempts } : result;
}

/**
 * The guard's answer for one attempt, raced against the act's stop: a breaker store that does
 * not answer does not hold the act past its timeout or the run's cancel. A guard that throws
 * (a store that failed) is a failure of the call, not an exception of the run.
 */
async function guarded(
  running: Promise<Invocation>,
  act: ActStop,
  tool: AnyTool,
  timeoutMs: number,
): Promise<Invocation> {
  try {
    return (await act.race(running)) as Invocation;
  } catch (thrown) {
    if (act.stopped !== undefined) return stoppedBy(act.stopped.reason, tool, timeoutMs);
    return {
      ok: false,
      status: 'error',
      code: 'SERVICE_UNAVAILABLE',
      message: `${tool.name} was not called: its guard failed: ${describeThrown(thrown)}`,
    };
  }
}

/** An attempt's outcome; a pending one is raced against the act's stop. */
async function settle(
  outcome: Invocation | PromiseLike<unknown>,
  act: ActStop,
  tool: AnyTool,
  timeoutMs: number,
): Promise<Invocation> {
  if (!isThenable(outcome)) return outcome;
  try {
    return { ok: true, output: await act.race(outcome) };
  } catch (thrown) {
    return act.stopped === undefined
      ? failedWith(thrown, tool)
      : stoppedBy(act.stopped.reason, tool, timeoutMs);
  }
}

// Retry delays: exponential from 100 ms, capped at 2 s, with half jitter (each delay in
// [d/2, d)): spread out, yet bounded below, so a retry never comes back at once.
let RETRY_BACKOFF: IBackoffFactory<unknown> | undefined;
/** Made on the first retry (cockatiel loads on first need). */
async function retryBackoff(): Promise<IBackoffFactory<unknown>> {
  if (RETRY_BACKOFF !== undefined) return RETRY_BACKOFF;
  const { ExponentialBackoff, halfJitterGenerator } = await loadCockatiel();
  const made: IBackoffFactory<unknown> = new ExponentialBackoff({
    initialDelay: 100,
    maxDelay: 2_000,
    generator: halfJitterGenerator,
  });
  RETRY_BACKOFF ??= made;
  return RETRY_BACKOFF;
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
  // Stopped by the run (deadline, cancel): says nothing about the tool's health (`byRun`).
  if (reason === RUN_DEADLINE) {
    const message = `the run's deadline passed while ${tool.name} ran`;
    return { ok: false, status: 'timeout', code: 'TIMEOUT', message, byRun: true };
  }
  return {
    ok: false,
    status: 'error',
    code: 'CANCELLED',
    message: `the run was cancelled while ${tool.name} ran`,
    byRun: true,
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
