import { z } from 'zod';
import type { ErrorCode } from './errors.js';
import { MAX_TIMER_MS } from './limits.js';
import type { Principal } from './principal.js';

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
  /** Reports how far a long call has come (e.g. MCP progress notifications); optional. */
  progress?(update: { readonly progress: number; readonly total?: number; readonly message?: string }): void;
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
 * - `timeoutMs` bounds one call (default: the run's `toolTimeoutMs`).
 * - `readOnly` says the tool changes nothing (later: retries and approval depend on it).
 */
export interface Tool<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly readOnly: boolean;
  readonly timeoutMs?: number;
  check?(output: z.output<O>, input: z.output<I>): CheckResult;
  run(input: z.output<I>, ctx: ToolContext): Promise<z.input<O>> | z.input<O>;
}

/** The loop handles tools of any schema; method syntax keeps `Tool<A, B>` assignable here. */
export type AnyTool = Tool<z.ZodType, z.ZodType>;

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Declares a tool with inferred types. Makes a top-level object input schema strict, and
 * throws on programmer mistakes (bad name, non-positive timeout).
 */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(tool: Tool<I, O>): Tool<I, O> {
  if (!TOOL_NAME.test(tool.name)) {
    throw new TypeError(`tool name ${JSON.stringify(tool.name)} must match ${TOOL_NAME}`);
  }
  if (tool.timeoutMs !== undefined && !(tool.timeoutMs > 0 && tool.timeoutMs <= MAX_TIMER_MS)) {
    throw new TypeError(`tool ${tool.name}: timeoutMs must be > 0 and ≤ ${MAX_TIMER_MS}`);
  }
  const input = tool.input instanceof z.ZodObject ? (tool.input.strict() as unknown as I) : tool.input;
  return Object.freeze({ ...tool, input });
}
