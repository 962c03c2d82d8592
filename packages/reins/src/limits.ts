/**
 * The hard bounds of one run. Configuration, reported in the `start` event and the record.
 */
export interface RunLimits {
  /** Model calls per run. The last one offers no tools, so tool rounds ≤ maxSteps − 1. */
  readonly maxSteps: number;
  /** Wall-clock budget for the whole run (ms). */
  readonly deadlineMs: number;
  /** Timeout for a tool call when the tool declares none (ms). */
  readonly toolTimeoutMs: number;
  /** One model call (ms); unset = computed from the tools (see `timeoutHierarchy`). */
  readonly modelTimeoutMs?: number | undefined;
  /** Most recent steps shown to the model in full; older observations are summarized. */
  readonly historyFullSteps: number;
  /** Characters of an older observation kept in its summary. */
  readonly summaryChars: number;
  /** Characters of any observation shown to the model (the record keeps it whole). */
  readonly observationChars: number;
  /** Tool calls one model step may make; extra calls are refused (`LIMIT_EXCEEDED`), not run. */
  readonly maxCallsPerStep: number;
  /** Read-only calls of one step that run at the same time (others run alone, in order). */
  readonly toolConcurrency: number;
  /** Longest model-written string in a tool input whose schema sets no `maxLength` (trimmed first). */
  readonly maxStringChars: number;
  /** A tool result larger than this (UTF-8 bytes of its JSON) is stored by reference, not shown whole. */
  readonly largeResultBytes: number;
  /** How long a call waits for its user's approval (the run's deadline stands still meanwhile). */
  readonly approvalTtlMs: number;
}

/**
 * The limits a run is given: any of `RunLimits`, with `maxSteps: 'auto'` to choose the step
 * limit from the query (3..12, see `autoMaxSteps`; the number and why are in `start`).
 */
export type RunLimitsInput = Omit<Partial<RunLimits>, 'maxSteps'> & {
  readonly maxSteps?: number | 'auto' | undefined;
  /** With `maxSteps: 'auto'`: the most it may choose (3..12; default 12), e.g. an agent's ceiling. */
  readonly autoMax?: number | undefined;
};

export const DEFAULT_LIMITS: RunLimits = Object.freeze({
  maxSteps: 4,
  deadlineMs: 60_000,
  toolTimeoutMs: 15_000,
  historyFullSteps: 2,
  summaryChars: 200,
  observationChars: 4_000,
  maxCallsPerStep: 5,
  toolConcurrency: 4,
  maxStringChars: 100,
  largeResultBytes: 100_000,
  approvalTtlMs: 600_000,
});

/** The longest delay a JavaScript timer honours; longer ones fire after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Merges overrides onto the defaults; throws on values that would disable a bound. */
export function resolveLimits(overrides: Partial<RunLimits> | undefined): RunLimits {
  if (overrides === undefined) return DEFAULT_LIMITS;
  for (const key in overrides) {
    const value = overrides[key as keyof RunLimits];
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_LIMITS, key) && key !== 'modelTimeoutMs')
      throw new RangeError(`unknown limit ${JSON.stringify(key)}`);
    const min = key === 'historyFullSteps' ? 0 : 1;
    if (!Number.isInteger(value) || value < min || value > MAX_TIMER_MS) {
      throw new RangeError(
        `limit ${key} must be an integer from ${min} to ${MAX_TIMER_MS}, got ${String(value)}`,
      );
    }
  }
  // Field by field, not a spread: this runs once per run, and the spread + freeze cost 6×.
  const d = DEFAULT_LIMITS;
  const limits: RunLimits = {
    maxSteps: overrides.maxSteps ?? d.maxSteps,
    deadlineMs: overrides.deadlineMs ?? d.deadlineMs,
    toolTimeoutMs: overrides.toolTimeoutMs ?? d.toolTimeoutMs,
    modelTimeoutMs: overrides.modelTimeoutMs,
    historyFullSteps: overrides.historyFullSteps ?? d.historyFullSteps,
    summaryChars: overrides.summaryChars ?? d.summaryChars,
    observationChars: overrides.observationChars ?? d.observationChars,
    maxCallsPerStep: overrides.maxCallsPerStep ?? d.maxCallsPerStep,
    toolConcurrency: overrides.toolConcurrency ?? d.toolConcurrency,
    maxStringChars: overrides.maxStringChars ?? d.maxStringChars,
    largeResultBytes: overrides.largeResultBytes ?? d.largeResultBytes,
    approvalTtlMs: overrides.approvalTtlMs ?? d.approvalTtlMs,
  };
  // Runs usually repeat one configuration: the last (frozen) result is shared, so a run in
  // flight does not hold its own copy (see bench/).
  if (lastLimits !== undefined && sameLimits(lastLimits, limits)) return lastLimits;
  return (lastLimits = Object.freeze(limits));
}

let lastLimits: RunLimits | undefined;

function sameLimits(a: RunLimits, b: RunLimits): boolean {
  return (
    a.maxSteps === b.maxSteps &&
    a.deadlineMs === b.deadlineMs &&
    a.toolTimeoutMs === b.toolTimeoutMs &&
    a.modelTimeoutMs === b.modelTimeoutMs &&
    a.historyFullSteps === b.historyFullSteps &&
    a.summaryChars === b.summaryChars &&
    a.observationChars === b.observationChars &&
    a.maxCallsPerStep === b.maxCallsPerStep &&
    a.toolConcurrency === b.toolConcurrency &&
    a.maxStringChars === b.maxStringChars &&
    a.largeResultBytes === b.largeResultBytes &&
    a.approvalTtlMs === b.approvalTtlMs
  );
}
