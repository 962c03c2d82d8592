import type { RunLimits } from './limits.js';
import type { AnyTool } from './tool.js';

/**
 * The nested time budgets of a run (seed 001, lesson 2): a model call must outlast the
 * slowest tool with all its tries (× 1.5 for slack), and the run's deadline must outlast a
 * model call. Computed in one place, refused at start when violated, reported in `start`.
 */
export interface TimeoutHierarchy {
  /** The slowest tool's timeout × tries × 1.5 (0 without tools). */
  readonly toolBudgetMs: number;
  /** Which tool sets `toolBudgetMs`. */
  readonly slowestTool?: string;
  /** One model call: the configured `modelTimeoutMs`, else max(toolBudgetMs, 30 s), capped by the deadline. */
  readonly modelTimeoutMs: number;
  readonly deadlineMs: number;
}

export const DEFAULT_MODEL_TIMEOUT_MS = 30_000;
/**
 * Tool timeouts that one act can spend: 1, because a tool's retries share its timeout (a
 * timed-out attempt is not retried, and no retry starts that the remaining budget cannot
 * hold). So `timeoutMs` bounds the whole act, and × 1.5 is the slack above it.
 */
export const TOOL_TRIES = 1;

export function timeoutHierarchy(limits: RunLimits, tools: readonly AnyTool[]): TimeoutHierarchy {
  let toolBudgetMs = 0;
  let slowestTool: string | undefined;
  for (const tool of tools) {
    const budget = Math.ceil((tool.timeoutMs ?? limits.toolTimeoutMs) * TOOL_TRIES * 1.5);
    if (budget > toolBudgetMs) {
      toolBudgetMs = budget;
      slowestTool = tool.name;
    }
  }
  const modelTimeoutMs =
    limits.modelTimeoutMs ?? Math.min(limits.deadlineMs, Math.max(toolBudgetMs, DEFAULT_MODEL_TIMEOUT_MS));
  if (modelTimeoutMs < toolBudgetMs) {
    throw new RangeError(
      `timeouts do not nest: the model timeout (${modelTimeoutMs} ms) must be at least tool ${slowestTool}'s ` +
        `timeout × ${TOOL_TRIES} tries × 1.5 = ${toolBudgetMs} ms; raise modelTimeoutMs/deadlineMs or lower the tool's timeoutMs`,
    );
  }
  if (modelTimeoutMs > limits.deadlineMs) {
    throw new RangeError(
      `timeouts do not nest: the model timeout (${modelTimeoutMs} ms) must not exceed the run deadline (${limits.deadlineMs} ms)`,
    );
  }
  return {
    toolBudgetMs,
    ...(slowestTool === undefined ? {} : { slowestTool }),
    modelTimeoutMs,
    deadlineMs: limits.deadlineMs,
  };
}

let lastShared: { limits: RunLimits; tools: object; value: TimeoutHierarchy } | undefined;

/**
 * `timeoutHierarchy` for a run, frozen and shared with the previous run while it has the
 * same limits object and tool set (`toolSet` gives a new one when the tools change), so a
 * run in flight does not hold its own copy (see bench/).
 */
export function sharedTimeoutHierarchy(
  limits: RunLimits,
  toolSet: object,
  tools: readonly AnyTool[],
): TimeoutHierarchy {
  if (lastShared?.limits === limits && lastShared.tools === toolSet) return lastShared.value;
  const value = Object.freeze(timeoutHierarchy(limits, tools));
  lastShared = { limits, tools: toolSet, value };
  return value;
}
