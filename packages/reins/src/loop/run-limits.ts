import { autoMaxSteps, type AutoSteps } from '../auto-steps.js';
import type { RunEvent } from '../events.js';
import { resolveLimits, type RunLimits, type RunLimitsInput } from '../limits.js';

/** A run's limits, and how its step limit was chosen when it was `'auto'`. */
export interface ChosenLimits {
  readonly limits: RunLimits;
  readonly maxStepsAuto: AutoSteps | undefined;
}

/**
 * The limits of a run (`runAgent`, `runPlanAgent`): `resolveLimits`, with `maxSteps: 'auto'`
 * chosen from the query — or, for a run rebuilt from its log, the number its `start` chose
 * (the estimator may have changed since; the run keeps its limit). Throws on invalid limits.
 */
export function chooseLimits(
  input: RunLimitsInput | undefined,
  query: string,
  history: readonly RunEvent[] | undefined,
): ChosenLimits {
  if (input?.maxSteps !== 'auto') {
    if (input?.autoMax !== undefined) throw new RangeError("limit autoMax applies only to maxSteps: 'auto'");
    return { limits: resolveLimits(input as Partial<RunLimits> | undefined), maxStepsAuto: undefined };
  }
  const { autoMax, ...rest } = input;
  if (autoMax !== undefined && (!Number.isInteger(autoMax) || autoMax < 1))
    throw new RangeError(`limit autoMax must be a positive integer, got ${String(autoMax)}`);
  const started = history?.[0];
  if (started?.type === 'start') {
    // Rebuilt: the limit its start chose (the estimator, or the configuration, may have changed since).
    const maxSteps = started.limits.maxSteps;
    return { limits: resolveLimits({ ...rest, maxSteps }), maxStepsAuto: started.maxStepsAuto };
  }
  const maxStepsAuto = autoMaxSteps(query, autoMax);
  return { limits: resolveLimits({ ...rest, maxSteps: maxStepsAuto.chosen }), maxStepsAuto };
}
