import type { z } from 'zod';
import type { ErrorCode } from './errors.js';
import { checkPolicy } from './policies/tool-policies.js';
import { MAX_TIMER_MS } from './limits.js';
import type { Principal } from './principal.js';
import { isZodObject } from './util/zod-duck.js';

/**
 * Everything a tool may trust. Written by the runtime, never by the model.
 *
 * Contract: `principal` is the authenticated caller (the only source of tenant identity);
 * `actId` is a fresh UUIDv4 for this one act (log it, use it as an idempotency key);
 * `signal` aborts when the run is cancelled, its deadline passes or this tool's timeout
 * fires — a tool that ignores it is abandoned anyway, but its side effects are not undone.
 */
export interface ToolContext {
  readonly principal: Principal;
  readonly runId: string;
  readonly actId: string;
  readonly signal: AbortSignal;
  /**
   * Reports progress of a long call (e.g. an MCP server's progress notifications); it
   * becomes a live `progress` step event. Ignored after the call settled. Optional: a
   * context built outside the loop may not have it.
   */
  progress?(update: ToolProgress): void;
  /**
   * Runs one named part of a call that does more than one thing (e.g. "fetch", "parse") and
   * records its start, end and outcome as a live step event: a sub-span of the tool call in
   * traces. Returns what `work` returns; a throw passes through. Optional, like `progress`.
   */
  span?<T>(name: string, work: () => T | Promise<T>): Promise<T>;
}

/** A progress report: `progress` of `total` (when known), with an optional short message. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * How calls of a tool are guarded, across runs. Declared on the tool; an app may override it
 * per tool name (`createToolPolicies({ overrides })`).
 */
export interface ToolPolicy {
  /**
   * Extra attempts after a transient failure (`SERVICE_UNAVAILABLE`, `RATE_LIMITED`), with
   * exponential backoff and jitter; read-only tools only (a tool that changes something is
   * never called twice by the runtime). Default 2. All attempts share the tool's timeout.
   */
  readonly retries?: number;
  /**
   * Circuit breaker: after `failures` consecutive failed attempts (default 3) the tool is not
   * called for `openMs` (default 300 000); then one probe call decides closed or open again.
   * `probe`: a cheap, side-effect-free check of what is behind the tool (an MCP server's
   * `tools/list`, a ping), run by itself as the half-open probe as soon as `openMs` has passed —
   * so a breaker closes when its dependency is back without waiting for a user's call (true:
   * closed; false or a throw: open another `openMs`). Without it, the next call is the probe.
   * `false` turns the breaker off.
   */
  readonly breaker?: false | BreakerPolicy;
  /**
   * Calls of this tool running at the same time, across runs; more are refused (`RATE_LIMITED`).
   * A call abandoned at its timeout or a cancel counts until its promise settles (it is still
   * running): a tool that ignores `ctx.signal` and never settles keeps its place. Default: no cap.
   */
  readonly concurrency?: number;
}

export interface BreakerPolicy {
  readonly failures?: number;
  readonly openMs?: number;
  readonly probe?: () => boolean | Promise<boolean>;
}

/** Where a failing tool's calls go instead, and what the answer loses by it (said to the user). */
export interface ToolFallback {
  /** The name of another tool of the same run; it gets the same input. */
  readonly tool: string;
  /** What the fallback cannot do that the primary could, e.g. "handwriting is not recognized". */
  readonly lost: string;
}

/** A business rule on a tool's output: `true` passes; a string or error data fails. */
export type CheckResult = true | string | { readonly code: ErrorCode; readonly message: string };

/**
 * A typed action the model may request.
 *
 * Contract:
 * - `input` is the model-visible schema. It is strict at the top level (unknown keys are
 *   rejected, so a model-invented `space_id` never reaches `run`); use `z.strictObject` for
 *   nested objects too.
 * - `run` receives validated input only, and may throw `ToolError` for typed failures.
 * - The result must pass `output` (schema) and `check` (business rule) before the model sees
 *   it; it is then sanitized (PII masked).
 * - `timeoutMs` bounds one call, retries included (default: the run's `toolTimeoutMs`).
 * - `readOnly` says the tool changes nothing: only such tools are retried, run side by side,
 *   and run without approval.
 * - `policy`: retries, circuit breaker, concurrency cap (see `ToolPolicy`).
 * - `fallback`: the tool that answers, labeled degraded, when this one fails or its breaker
 *   is open.
 * - `needsApproval`: the run pauses for the user's approval of the exact input before each
 *   call. Default: `!readOnly`.
 * - `idempotent`: a tool that changes something but may be called again with the same
 *   `ctx.actId` without doing it twice (the act id is its idempotency key). A durable run
 *   resumed after a crash repeats an interrupted call only of read-only or idempotent tools;
 *   any other interrupted call stops the run `outcome_unknown` for a person to check.
 * - `version` and `lastUpdated`: the definition's version (bump it when the description, a
 *   schema or a flag changes) and the date it last changed (ISO 8601). `reins tools check`
 *   compares the definitions in use with the last approved ones and flags a change made
 *   without a version bump louder. Optional; not read by the loop.
 */
export interface Tool<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly readOnly: boolean;
  readonly timeoutMs?: number;
  readonly policy?: ToolPolicy;
  readonly fallback?: ToolFallback;
  readonly needsApproval?: boolean;
  readonly idempotent?: boolean;
  /** The definition's version, e.g. `"2"` or `"1.3.0"` (1–64 characters, no spaces). */
  readonly version?: string;
  /** When the definition last changed: an ISO 8601 date (`2026-12-02`) or date-time. */
  readonly lastUpdated?: string;
  check?(output: z.output<O>, input: z.output<I>): CheckResult;
  run(input: z.output<I>, ctx: ToolContext): Promise<z.input<O>> | z.input<O>;
}

/** Whether a call of `tool` waits for its user: `needsApproval`, by default every tool that changes something. */
export function needsApproval(tool: AnyTool): boolean {
  return tool.needsApproval ?? !tool.readOnly;
}

/** The loop handles tools of any schema; method syntax keeps `Tool<A, B>` assignable here. */
export type AnyTool = Tool<z.ZodType, z.ZodType>;

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const VERSION = /^\S{1,64}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Declares a tool with inferred types. Makes a top-level object input schema strict, and
 * throws on programmer mistakes (bad name, non-positive timeout, malformed version or date).
 */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(tool: Tool<I, O>): Tool<I, O> {
  if (!TOOL_NAME.test(tool.name)) {
    throw new TypeError(`tool name ${JSON.stringify(tool.name)} must match ${TOOL_NAME}`);
  }
  if (tool.timeoutMs !== undefined && !(tool.timeoutMs > 0 && tool.timeoutMs <= MAX_TIMER_MS)) {
    throw new TypeError(`tool ${tool.name}: timeoutMs must be > 0 and ≤ ${MAX_TIMER_MS}`);
  }
  checkPolicy(tool.name, tool.policy);
  if (tool.version !== undefined && !VERSION.test(tool.version)) {
    throw new TypeError(`tool ${tool.name}: version must be 1–64 characters without spaces`);
  }
  if (tool.lastUpdated !== undefined && !isIsoDate(tool.lastUpdated)) {
    throw new TypeError(`tool ${tool.name}: lastUpdated must be an ISO 8601 date, e.g. 2026-12-02`);
  }
  if (tool.fallback !== undefined && tool.fallback.tool === tool.name) {
    throw new TypeError(`tool ${tool.name}: a tool cannot be its own fallback`);
  }
  const input = isZodObject(tool.input) ? (tool.input.strict() as unknown as I) : tool.input;
  return Object.freeze({ ...tool, input });
}

function isIsoDate(text: string): boolean {
  return ISO_DATE.test(text) && !Number.isNaN(Date.parse(text));
}
