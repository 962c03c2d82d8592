import { AUTO_MAX_STEPS, AUTO_MIN_STEPS, DEFAULT_LIMITS, type Model, type RunLimitsInput } from 'reins';
import { ApiError } from './http-error.js';
import type { AgentDefinition } from './server-options.js';

/** What a caller may choose per run (the playground's slider and picker), validated. */
export interface RunOptions {
  /**
   * Fewer model steps than the agent allows; more is clamped to the agent's limit. `auto`:
   * chosen from the query (3..12, at most the agent's limit; see `autoMaxSteps`).
   */
  readonly maxSteps?: number | 'auto';
  /** One of the agent's configured models, by name. */
  readonly model?: string;
}

/** Reads `maxSteps` / `model` from a run request body: wrong types or values are a 400, never ignored. */
export function readRunOptions(body: Record<string, unknown>): RunOptions {
  const { maxSteps, model } = body;
  const out: { maxSteps?: number | 'auto'; model?: string } = {};
  if (maxSteps !== undefined) {
    if (
      maxSteps !== 'auto' &&
      (typeof maxSteps !== 'number' || !Number.isInteger(maxSteps) || maxSteps < 1)
    ) {
      throw new ApiError(400, 'INVALID_PARAMETER', 'maxSteps: a whole number ≥ 1, or "auto", is required');
    }
    out.maxSteps = maxSteps;
  }
  if (model !== undefined) {
    if (typeof model !== 'string' || model === '' || model.length > 200) {
      throw new ApiError(400, 'INVALID_PARAMETER', 'model: a model name is required');
    }
    out.model = model;
  }
  return out;
}

/** The models a caller may pick for an agent: its own first, then its alternatives, by name. */
export function agentModels(definition: AgentDefinition): Map<string, Model> {
  const models = new Map<string, Model>([[definition.model.name, definition.model]]);
  for (const model of Object.values(definition.models ?? {}))
    if (!models.has(model.name)) models.set(model.name, model);
  return models;
}

/** The most model steps a run of the agent may take (an `auto` agent: what `auto` may choose). */
export function agentMaxSteps(definition: AgentDefinition): number {
  const limits = definition.limits;
  const maxSteps = limits?.maxSteps ?? DEFAULT_LIMITS.maxSteps;
  if (maxSteps !== 'auto') return maxSteps;
  return Math.max(AUTO_MIN_STEPS, Math.min(AUTO_MAX_STEPS, limits?.autoMax ?? AUTO_MAX_STEPS));
}

/**
 * The model and limits of one run: the agent's, narrowed by the caller's options. The agent's
 * step limit is a ceiling the caller cannot raise (a larger `maxSteps` is clamped to it);
 * an unknown model name is refused with the names that exist.
 */
export function applyRunOptions(
  definition: AgentDefinition,
  options: RunOptions,
): { model: Model; limits: RunLimitsInput | undefined } {
  let model = definition.model;
  if (options.model !== undefined) {
    const models = agentModels(definition);
    const picked = models.get(options.model);
    if (picked === undefined) {
      throw new ApiError(
        400,
        'INVALID_PARAMETER',
        `model: ${JSON.stringify(options.model)} is not configured for this agent (one of: ${[...models.keys()].join(', ')})`,
      );
    }
    model = picked;
  }
  if (options.maxSteps === undefined) return { model, limits: definition.limits };
  const ceiling = agentMaxSteps(definition);
  if (options.maxSteps === 'auto') {
    // Chosen from the query within the agent's limit (an agent allowing < 3 steps keeps its own).
    if (ceiling < AUTO_MIN_STEPS) return { model, limits: { ...definition.limits, maxSteps: ceiling } };
    return { model, limits: { ...definition.limits, maxSteps: 'auto', autoMax: ceiling } };
  }
  const maxSteps = Math.min(options.maxSteps, ceiling);
  const { autoMax: _autoMax, ...rest } = definition.limits ?? {}; // a number replaces an agent's `auto`
  return { model, limits: { ...rest, maxSteps } };
}
